// SPDX-License-Identifier: GPL-2.0
/*
 * memory.reap_on_kill: expedited reaping of killed processes
 *
 * A killed process gives its memory back when it runs its own exit path.
 * If the victim is throttled by cpu.max, confined to a slow or busy CPU,
 * niced, or blocked in the kernel, that can take seconds, and whoever
 * killed it to relieve memory pressure (systemd-oomd, lmkd, the OOM
 * killer, cgroup.kill) sees no relief and may kill again.
 *
 * With memory.reap_on_kill set on a memory cgroup or any of its ancestors,
 * the moment a signal becomes fatal to the whole thread group of a task in
 * that subtree, the private memory of its address space is unmapped by a
 * worker of an unbound, high-priority workqueue, as the OOM reaper would:
 * not in the victim's context, so none of the victim's CPU limits apply.
 *
 * The pieces, in the order a kill runs through them:
 *
 * complete_signal() -> reap_on_kill_queue()
 *	Runs under the victim's siglock with interrupts off, maybe in hard-IRQ
 *	context (an itimer's SIGALRM), once per process, as its group exit
 *	starts.  Behind a static key, it reads whether the memcg of a live
 *	thread has the setting in effect (kept per memcg by every write),
 *	takes a task reference, and queues a reap allocated as the signal
 *	path allocates its sigqueue: with GFP_ATOMIC, accounted.
 *	The reap hangs on the victim's signal_struct until that is freed.
 *	In task context it also pins the mm with a trylock of the task lock;
 *	where it cannot, see below.
 *
 * exit_mm() -> reap_on_kill_exit_mm()
 *	A victim that runs its exit path before the worker did pins the mm on
 *	its way out.  This closes the window in which every thread passed
 *	exit_mm() while a /proc reader, AIO or process_vm_readv() keeps the mm
 *	alive but out of reach of its tasks: either the kill path, the worker
 *	(under task_lock) or the last exiting thread pins it.  The worker
 *	keeps the pin until the reap is over, then closes the slot, so a pin
 *	can never be left behind.
 *
 * reap_on_kill_work()
 *	Leaves the mm alone if any other process uses it (a CLONE_VM partner,
 *	a vfork parent or child): that process may live on, or have robust
 *	futex lists of its own in the memory.  Otherwise it unmaps private
 *	memory under mmap_lock taken for read, with the OOM reaper's own
 *	__oom_reap_task_mm().  The lock is only ever trylocked: while a
 *	writer holds it (often the victim itself, throttled inside mmap() or
 *	munmap()), the work is queued again after
 *	a short delay instead of waiting, see reap_retry().  Remote
 *	readers get errors, not zeroes or file contents, for reaped memory,
 *	see reap_mm_locked().  Robust futex lists are honoured, see
 *	reap_keep_robust_lists().
 *
 * What it never does: it does not make the victim an OOM victim (no
 * TIF_MEMDIE, no signal->oom_mm, no access to memory reserves), does not
 * change how the OOM killer sees it (see reap_mm_locked()), adds no
 * signal semantics and no syscall, and costs kill() a patched-out branch
 * while no cgroup uses it; while one does, a fatal signal to a process
 * outside covered cgroups costs a look at its memcg.
 */

#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/futex.h>
#include <linux/highmem.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/pagewalk.h>
#include <linux/reap_on_kill.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/secretmem.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/reap_on_kill.h>

/*
 * On while any memory cgroup has the setting.  Turning a static key on or
 * off patches the kernel text on every CPU, isolated ones too; a loop of
 * writes in a delegated cgroup must not be a way to do that at will, so
 * the last one off takes effect a second later, and a write that turns it
 * on again within that second patches nothing: at most two patches a
 * second, however fast the writes come.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(reap_on_kill_key, HZ);

/**
 * struct reap_on_kill - the reap of a killed process
 * @dwork: runs the reap on reap_on_kill_wq, at once, and again after a
 *	delay while the victim holds mmap_lock for writing or has a robust
 *	futex list out of memory
 * @mm: the address space to reap, pinned with mmgrab(), or NULL if no
 *	task had it at hand yet; set once, by cmpxchg(), and closed by the
 *	worker when the reap is over (see reap_pin_mm())
 * @task: the thread the fatal signal was sent to, referenced until the
 *	reap is done
 * @memcg_id: cgroup ID of the victim's memory cgroup at kill time
 * @queued_ns: local_clock(), on the CPU of the kill, when the reap was
 *	queued
 * @started_ns: local_clock() when the worker first ran
 * @attempts: how many times the worker ran
 * @robust_reads: words of robust futex lists the worker read so far, and
 *	threads it looked at, over all attempts
 * @fenced: no thread of the victim runs user code any more
 *
 * Allocated by the kill path from reap_on_kill_cache and hung on the
 * victim's signal_struct, where it stays until that is freed: a process
 * is killed at most once, and what is hung there tells set_robust_list()
 * and exit_mm() that a reap is pending or done.  Fields past @task are
 * only touched by the worker, which runs one attempt at a time.
 */
struct reap_on_kill {
	struct delayed_work dwork;
	struct mm_struct *mm;
	struct task_struct *task;
	u64 memcg_id;
	u64 queued_ns;
	u64 started_ns;
	unsigned int attempts;
	unsigned int robust_reads;
	bool fenced;
};

static struct workqueue_struct *reap_on_kill_wq;

/*
 * The kill path allocates reaps as it allocates the signal's sigqueue:
 * with GFP_ATOMIC, under siglock, maybe in an interrupt, accounted (to
 * the sender's memcg in task context).  A kill that finds no memory for
 * one is a plain kill.
 */
static struct kmem_cache *reap_on_kill_cache;

/* Serializes writers of memcg->reap_on_kill and its propagation. */
static DEFINE_MUTEX(reap_on_kill_mutex);

/* The longest delay before the worker tries again, in ms ... */
#define REAP_RETRY_MAX_MS	64
/* ... and how long it keeps trying, see reap_retry(). */
#define REAP_RETRY_TIMEOUT_MS	30000

/* Distinct VMAs the robust futex lists may keep alive, see below. */
#define REAP_KEEP_MAX		16

/*
 * Words of robust futex lists the worker reads for one reap, over all its
 * attempts, before it gives up and keeps the whole address space; each
 * thread it looks at counts as one.  A glibc thread with an empty list
 * costs 4, so a process of 100 threads waiting for a list head in swap
 * is walked again for the whole REAP_RETRY_TIMEOUT_MS within it.
 */
#define REAP_ROBUST_BUDGET	262144

/* rok->mm once the reap is over: later pins fail and drop their own. */
#define REAP_MM_TAKEN		((struct mm_struct *)-1L)

/* The VMAs the victim's exit path will still read. */
struct reap_keep {
	unsigned int nr;
	unsigned int budget;	/* reads left, see REAP_ROBUST_BUDGET */
	struct vm_area_struct *vma[REAP_KEEP_MAX];
};

/*
 * Does unmapping @vma give anything back?  Unlike the OOM reaper, we skip
 * a private file mapping without an anon_vma: it was never written (a
 * copy-on-write fault sets one up first), so it maps page-cache pages
 * only, and unmapping those frees nothing.  Program text and read-only
 * data are left to the victim's exit_mmap() rather than cost the worker a
 * page-table walk.  One that gets an anon_vma while we look (a remote
 * writer, the exit path's own futex writes) is left too: it is kept or
 * freed as by the victim's exit, which is never wrong.
 */
static bool reap_vma_worth_it(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) || READ_ONCE(vma->anon_vma);
}

/*
 * Give a pending reap its address space, which the caller keeps alive for
 * the duration.  The first caller wins; once the reap is over, @rok->mm stays
 * REAP_MM_TAKEN and later callers lose.  A loser's mmdrop() is never the
 * final one: the caller's own reference (task->mm under task_lock, or
 * current->mm) holds mm_count above ours.
 */
static void reap_pin_mm(struct reap_on_kill *rok, struct mm_struct *mm)
{
	if (READ_ONCE(rok->mm))
		return;
	mmgrab(mm);
	if (cmpxchg(&rok->mm, NULL, mm))
		mmdrop(mm);
}

/*
 * task_lock() is not irq-safe, so it cannot be waited for under siglock;
 * a trylock adds no lock dependency.  From an interrupt we do not even try
 * (task_lock() is never taken there, and PREEMPT_RT forbids it), and the
 * worker finds the mm itself.
 */
static bool reap_pin_mm_now(struct reap_on_kill *rok, struct task_struct *p)
{
	if (!in_task() || !spin_trylock(&p->alloc_lock))
		return false;
	if (p->mm)
		reap_pin_mm(rok, p->mm);
	spin_unlock(&p->alloc_lock);
	return !!READ_ONCE(rok->mm);
}

static void reap_on_kill_work(struct work_struct *work);

/*
 * The cgroup ID of @p's memory cgroup if memory.reap_on_kill is in effect
 * there, else 0 (no cgroup has that ID).
 */
static u64 reap_covered_memcg_id(struct task_struct *p)
{
	struct cgroup_subsys_state *css;

	guard(rcu)();
	css = task_css(p, memory_cgrp_id);
	if (css && READ_ONCE(mem_cgroup_from_css(css)->reap_on_kill_effective))
		return cgroup_id(css->cgroup);
	return 0;
}

void __reap_on_kill_queue(struct task_struct *target)
{
	struct task_struct *p = reap_on_kill_live_thread(target);
	struct signal_struct *sig = p->signal;
	struct reap_on_kill *rok;
	u64 memcg_id;
	bool pinned;

	lockdep_assert_held(&p->sighand->siglock);

	memcg_id = reap_covered_memcg_id(p);
	if (!memcg_id)
		return;
	/* SIGKILL interrupting a core dump: the dumper still reads the mm. */
	if (sig->core_state || (p->flags & PF_KTHREAD))
		return;
	/* prepare_signal() drops signals once the group exit started. */
	if (WARN_ON_ONCE(sig->reap_on_kill))
		return;
	rok = kmem_cache_zalloc(reap_on_kill_cache, GFP_ATOMIC | __GFP_NOWARN);
	if (!rok)
		return;

	get_task_struct(p);
	rok->task = p;
	rok->memcg_id = memcg_id;
	rok->queued_ns = local_clock();
	pinned = reap_pin_mm_now(rok, p);
	INIT_DELAYED_WORK(&rok->dwork, reap_on_kill_work);
	/* exit_mm() may look at it as soon as it is there. */
	smp_store_release(&sig->reap_on_kill, rok);
	queue_delayed_work(reap_on_kill_wq, &rok->dwork, 0);
	trace_reap_on_kill_queue(p, rok->memcg_id, pinned);
}

void __reap_on_kill_exit_mm(struct reap_on_kill *rok, struct mm_struct *mm)
{
	reap_pin_mm(rok, mm);
}

void __reap_on_kill_free(struct reap_on_kill *rok)
{
	kmem_cache_free(reap_on_kill_cache, rok);
}

/*
 * The pinned mm, pinning it first through any thread that still has it if
 * neither the kill path nor exit_mm() could.  Once set, the slot keeps its
 * pin until reap_put_mm(): later pins lose the cmpxchg() and drop theirs.
 */
static struct mm_struct *reap_get_mm(struct reap_on_kill *rok)
{
	struct task_struct *p;

	if (!READ_ONCE(rok->mm)) {
		p = find_lock_task_mm(rok->task);
		if (p) {
			reap_pin_mm(rok, p->mm);
			task_unlock(p);
		}
	}
	return READ_ONCE(rok->mm);
}

/* Drop the pin, if any, and close the slot for good. */
static void reap_put_mm(struct reap_on_kill *rok)
{
	struct mm_struct *mm = xchg(&rok->mm, REAP_MM_TAKEN);

	if (mm)
		mmdrop(mm);
}

#ifdef CONFIG_FUTEX
static void reap_fence_ipi(void *unused)
{
}

/*
 * Wait until no thread of the victim can run user code again, so that its
 * robust lists change only through its own exit path.  Every thread got
 * TIF_SIGPENDING under siglock before the work was queued: one off a CPU
 * returns to user mode only through exit_to_user_mode(), which acts on the
 * SIGKILL first, and one on a CPU does the same as our IPI returns.
 * Uprobes let none through: uprobe_deny_signal() holds the signal back
 * only until the out-of-line step is aborted, unexecuted, and what a probe
 * writes for the thread lies below its stack pointer.
 *
 * Kernel code may still end a robust unlock after the fence: the vDSO
 * unlock fix-up on interrupt exit (futex_fixup_robust_unlock()) and
 * FUTEX_ROBUST_UNLOCK (futex_robust_unlock(), futex_unlock_pi()) only ever
 * clear list_op_pending, the thread's own &head->list_op_pending as the C
 * library passes it, so we keep at worst more than the exit path needs.
 * A late store into a reaped private word concerns only the dying process:
 * a waiter in another process shares the page, which is never reaped.
 *
 * set_robust_list() is the one way a thread already in the kernel could
 * point its exit path at another list: it stores the pointer under
 * task_lock() unless a reap was queued, and we read the pointers under the
 * same lock (see reap_on_kill_robust_list_begin()).
 */
static void reap_fence_user_mode(struct reap_on_kill *rok)
{
	struct task_struct *t;

	/* Once is enough: the threads are dying, none goes back. */
	if (rok->fenced)
		return;
	rok->fenced = true;
	rcu_read_lock();
	for_each_thread(rok->task, t) {
		if (task_curr(t))
			smp_call_function_single(task_cpu(t), reap_fence_ipi,
						 NULL, true);
	}
	rcu_read_unlock();
}

/* Keep the VMA(s) holding [uaddr, uaddr + size) out of the reap. */
static bool reap_keep_range(struct reap_keep *keep, struct mm_struct *mm,
			    const void __user *uaddr, size_t size)
{
	unsigned long start = untagged_addr_remote(mm, (unsigned long)uaddr);
	unsigned long addr[2] = { start, start + size - 1 };
	struct vm_area_struct *vma;
	unsigned int i, k;

	for (k = 0; k < ARRAY_SIZE(addr); k++) {
		vma = vma_lookup(mm, addr[k]);
		if (!vma)
			continue;	/* the exit path faults there anyway */
		if (!oom_reap_vma_wanted(vma))
			continue;	/* stays in place anyway */
		for (i = 0; i < keep->nr && keep->vma[i] != vma; i++)
			;
		if (i < keep->nr)
			continue;
		if (keep->nr == REAP_KEEP_MAX)
			return false;
		keep->vma[keep->nr++] = vma;
	}
	return true;
}

/*
 * Read @size bytes at @addr, within one page, through the page tables, as
 * the victim's own read will find them but without faulting: whatever the
 * PTE's protection bits say (NUMA hinting, access bit aged, protection
 * keys, which a kthread's view of user memory would trip over), a present
 * page is read.  Called with mmap_lock held and under RCU, so a hugetlb
 * VMA, whose walk may sleep for its VMA lock, is not read.
 *
 * Return: 0 if @dst was filled in; -EFAULT where the victim's read will
 * fault for good (no VMA there, or one it may not access), so that it
 * stops walking the list; -EAGAIN where it would have to fault the page
 * in (swapped out, under migration, a userfaultfd or guard region), or
 * for a hugetlb page; -EOPNOTSUPP where we cannot read what it would
 * (secret memory, PFN and I/O mappings).
 */
static int reap_read_page(struct mm_struct *mm, void *dst, unsigned long addr,
			  size_t size)
{
	struct vm_area_struct *vma = vma_lookup(mm, addr);
	struct folio_walk fw;
	void *kaddr;

	if (!vma || !vma_is_accessible(vma))
		return -EFAULT;
	/* Out of the direct map, or without a struct page to read. */
	if (vma_is_secretmem(vma) || (vma->vm_flags & (VM_IO | VM_PFNMAP)))
		return -EOPNOTSUPP;
	if (is_vm_hugetlb_page(vma))
		return -EAGAIN;
	if (!folio_walk_start(&fw, vma, addr, FW_ZEROPAGE))
		return -EAGAIN;
	if (fw.page) {
		flush_anon_page(vma, fw.page, addr);
		kaddr = kmap_local_page(fw.page);
		memcpy(dst, kaddr + offset_in_page(addr), size);
		kunmap_local(kaddr);
	} else {
		memset(dst, 0, size);	/* the shared zero page */
	}
	folio_walk_end(&fw, vma);
	return 0;
}

/**
 * reap_read_user - read the victim's memory as the exit path will
 * @keep: the walk's state, with its read budget
 * @mm: the victim's address space, with mmap_lock held
 * @dst: where to copy to
 * @uptr: where the victim's exit path reads
 * @size: how much, less than a page
 *
 * Return: 0, -EFAULT, -EAGAIN as for reap_read_page(), or -E2BIG once the
 * budget is spent.
 */
static int reap_read_user(struct reap_keep *keep, struct mm_struct *mm,
			  void *dst, const void __user *uptr, size_t size)
{
	unsigned long addr = untagged_addr_remote(mm, (unsigned long)uptr);
	size_t first = min_t(size_t, size, PAGE_SIZE - offset_in_page(addr));
	int ret;

	if (!keep->budget)
		return -E2BIG;
	keep->budget--;
	ret = reap_read_page(mm, dst, addr, first);
	if (!ret && first < size)
		ret = reap_read_page(mm, dst + first, addr + first,
				     size - first);
	return ret;
}

static int reap_fetch_entry(struct reap_keep *keep, struct mm_struct *mm,
			    struct robust_list __user **entry,
			    struct robust_list __user * __user *uptr)
{
	unsigned long val;
	int ret;

	ret = reap_read_user(keep, mm, &val, uptr, sizeof(val));
	if (ret)
		return ret;
	*entry = (struct robust_list __user *)(val & ~FUTEX_ROBUST_MOD_MASK);
	return 0;
}

/* A read that fails for good ends the walk of a list, as in the exit path. */
static int reap_list_end(int ret)
{
	return ret == -EFAULT ? 0 : ret;
}

/*
 * Collect what exit_robust_list() will read and write of one thread's list,
 * reading in its order and stopping where it stops: the head, each entry
 * and its futex word, and the pending entry's futex word.  An empty list
 * needs nothing kept: the exit path reads the head, and if that faults it
 * has no mutex to release anyway.
 */
static int reap_keep_robust_list(struct reap_keep *keep, struct mm_struct *mm,
				 struct robust_list_head __user *head)
{
	struct robust_list __user *entry, *pending;
	unsigned int limit = ROBUST_LIST_LIMIT;
	long futex_offset;
	int ret;

	ret = reap_fetch_entry(keep, mm, &entry, &head->list.next);
	if (!ret)
		ret = reap_read_user(keep, mm, &futex_offset,
				     &head->futex_offset, sizeof(futex_offset));
	if (!ret)
		ret = reap_fetch_entry(keep, mm, &pending,
				       &head->list_op_pending);
	if (ret)
		return reap_list_end(ret);

	if (entry == &head->list && !pending)
		return 0;
	if (!reap_keep_range(keep, mm, head, sizeof(*head)))
		return -ENOSPC;

	while (entry != &head->list) {
		if (!reap_keep_range(keep, mm, entry, sizeof(*entry)) ||
		    !reap_keep_range(keep, mm, (void __user *)entry + futex_offset,
				     sizeof(u32)))
			return -ENOSPC;
		/* Unable to read on, the exit path still releases this one. */
		ret = reap_fetch_entry(keep, mm, &entry, &entry->next);
		if (ret)
			return reap_list_end(ret);
		if (!--limit)
			break;
	}
	if (pending && !reap_keep_range(keep, mm,
					(void __user *)pending + futex_offset,
					sizeof(u32)))
		return -ENOSPC;
	return 0;
}

/*
 * Collect what the exit path needs of thread @t's list.  Looking at a
 * thread costs one read of the budget too, so that a walk that starts
 * again (see reap_next_thread()) stays bounded with empty lists as well.
 */
static int reap_keep_thread_list(struct reap_keep *keep,
				 struct mm_struct *mm, struct task_struct *t)
{
	struct robust_list_head __user *head;
	bool compat = false;

	if (!keep->budget)
		return -E2BIG;
	keep->budget--;
	/*
	 * Once a reap is queued, set_robust_list() changes no list; the exit
	 * path may still clear one it walked (futex_cleanup()), unlocked.
	 */
	task_lock(t);
	head = READ_ONCE(t->futex.robust_list);
#ifdef CONFIG_COMPAT
	compat = !!READ_ONCE(t->futex.compat_robust_list);
#endif
	task_unlock(t);
	if (compat)
		return -EOPNOTSUPP;
	return head ? reap_keep_robust_list(keep, mm, head) : 0;
}

/*
 * The thread after @t, in an RCU read-side section that we may leave in
 * between to let the CPU go: a thread's list may take thousands of reads.
 * @t, pinned meanwhile, may have left the thread list by then (it went
 * through its exit path, robust list and all), and with it our place:
 * start again from the first thread.  What is kept only grows, threads
 * only leave, and the budget bounds the reads done again.
 */
static struct task_struct *reap_next_thread(struct signal_struct *sig,
					    struct task_struct *t)
{
	bool listed;

	if (need_resched()) {
		get_task_struct(t);
		rcu_read_unlock();
		cond_resched();
		rcu_read_lock();
		/* __unhash_process() clears it as it unlinks the thread. */
		listed = pid_alive(t);
		put_task_struct(t);	/* RCU still keeps a listed @t */
		if (!listed)
			return list_first_or_null_rcu(&sig->thread_head,
						      struct task_struct,
						      thread_node);
	}
	return __next_thread(t);
}

/**
 * reap_keep_robust_lists - find what the victim's exit path still needs
 * @rok: the reap
 * @keep: VMAs to leave in place
 * @mm: the victim's address space, with mmap_lock held for reading
 *
 * When a thread holding a robust mutex dies, its exit path walks its robust
 * futex list in user memory and marks each mutex FUTEX_OWNER_DIED, so that
 * waiters in other processes get EOWNERDEAD.  Had we unmapped that memory,
 * the walk would fault and the waiters would block forever; this is why the
 * OOM reaper waits two seconds before it starts.  We do better: glibc
 * registers a list head for every thread, but a list is empty unless the
 * thread holds a robust mutex, and then the exit path needs no memory at
 * all.  Otherwise we walk the list as the exit path will and keep every VMA
 * it touches that the reap would unmap; the rest is reaped at once.
 *
 * The lists are read through the page tables, without faulting, after
 * reap_fence_user_mode() stopped user space from changing them; what the
 * kernel may still change on the victim's behalf, and how a thread inside
 * set_robust_list() is kept from changing its list, are described there.
 * Where the exit path's own read will fail, its walk of that list ends,
 * and so does ours.  A list in a page the exit path would have to fault in (the
 * head in the TLS of an idle thread that was swapped out, say) we do not
 * fault in ourselves: a fault from here may charge a memory cgroup at its
 * limit and invoke its OOM killer on the victim's behalf, or wait for ever
 * on a dead file server.  We leave it to that thread's exit path, which
 * faults it in as it would without us and then clears its list pointer;
 * meanwhile nothing is reaped, and reap_retry() walks the lists again.
 * A compat list, a list spread over more than REAP_KEEP_MAX VMAs, or more
 * than REAP_ROBUST_BUDGET reads for the reap, over all its walks, keep the
 * whole address space: the worker's time is not the victim's cpu.max.
 *
 * Return: 0; -EAGAIN to try again later; another negative errno if nothing
 * may be reaped.
 */
static int reap_keep_robust_lists(struct reap_on_kill *rok,
				  struct reap_keep *keep,
				  struct mm_struct *mm)
{
	struct signal_struct *sig = rok->task->signal;
	unsigned int budget;
	struct task_struct *t;
	int ret = 0;

	reap_fence_user_mode(rok);
	budget = REAP_ROBUST_BUDGET - min(rok->robust_reads, REAP_ROBUST_BUDGET);
	keep->budget = budget;
	rcu_read_lock();
	t = list_first_or_null_rcu(&sig->thread_head, struct task_struct,
				   thread_node);
	while (t) {
		ret = reap_keep_thread_list(keep, mm, t);
		if (ret)
			break;
		t = reap_next_thread(sig, t);
	}
	rcu_read_unlock();
	rok->robust_reads += budget - keep->budget;
	return ret;
}
#else /* !CONFIG_FUTEX: no robust futex lists to honour */
static int reap_keep_robust_lists(struct reap_on_kill *rok,
				  struct reap_keep *keep,
				  struct mm_struct *mm)
{
	return 0;
}
#endif /* CONFIG_FUTEX */

static bool reap_vma_kept(const struct reap_keep *keep,
			  const struct vm_area_struct *vma)
{
	unsigned int i;

	for (i = 0; i < keep->nr; i++)
		if (keep->vma[i] == vma)
			return true;
	return false;
}

/*
 * The kill path and the worker read local_clock(): the kill path runs under
 * siglock with interrupts off, maybe in hard-IRQ context, where
 * local_clock() costs a per-CPU sched_clock() read while ktime_get_ns()
 * reads the clocksource (HPET: microseconds) in the timekeeping seqcount
 * loop.  Read on two CPUs (an unbound worker may also move between two
 * attempts), it can go backwards by as much as the CPUs' clocks differ
 * (local_clock() keeps that to about a tick where sched_clock() is not
 * stable): report 0 then, not a huge u64.  The trace buffer's default
 * clock, "local", is sched_clock(), which local_clock() is wherever the
 * TSC is stable, so the events' own timestamps compare with these.
 */
static u64 reap_ns_between(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

/* What the reap leaves to the exit path of what the OOM reaper unmaps. */
static bool reap_vma_skipped(struct vm_area_struct *vma, void *keep)
{
	return !reap_vma_worth_it(vma) || (keep && reap_vma_kept(keep, vma));
}

/*
 * What a reap gives back to the system: anonymous pages and swap entries.
 * Unmapping a private file mapping's page-cache page frees nothing, and
 * shared memory stays with its other users.
 */
static unsigned long reap_mm_private(struct mm_struct *mm)
{
	return get_mm_counter_sum(mm, MM_ANONPAGES) +
	       get_mm_counter_sum(mm, MM_SWAPENTS);
}

/*
 * Unmap what can go; called with mmap_lock held for reading.  @keep is NULL
 * once the mm has no users left (__mmput() owns it): the robust lists were
 * walked in exit_mm().
 *
 * *@freed is how far reap_mm_private() fell while we unmapped, read under
 * the lock.  It also includes what the victim freed meanwhile: exit_mmap()
 * when we reap beside it (no lock keeps it out of our way), or a thread
 * caught inside munmap() or madvise() after the kill.  It stays 0 when the
 * reap did not start.
 */
static enum reap_on_kill_result reap_mm_locked(struct reap_on_kill *rok,
					       struct mm_struct *mm,
					       struct reap_keep *keep,
					       unsigned long *freed)
{
	unsigned long before;
	bool complete;

	/*
	 * The OOM reaper got here first, or exit_mmap() is past the point
	 * where it unmaps and is about to free the page tables.
	 */
	if (mm_flags_test(MMF_OOM_SKIP, mm))
		return REAP_ON_KILL_DONE_ELSEWHERE;
	if (keep) {
		int ret = reap_keep_robust_lists(rok, keep, mm);

		if (ret) {
			/* No reap, so no VMA kept out of one: kept_vmas 0. */
			keep->nr = 0;
			return ret == -EAGAIN ? REAP_ON_KILL_ROBUST_NOT_RESIDENT :
						REAP_ON_KILL_ROBUST_UNKNOWN;
		}
	}

	/*
	 * __oom_reap_task_mm() sets MMF_UNSTABLE, which also makes swapoff
	 * skip the mm (unuse_mm()) until the victim exits, as after the OOM
	 * reaper (see the documentation).
	 *
	 * What a remote reader (/proc/pid/mem, process_vm_readv(), ptrace)
	 * that faults on a reaped page then gets, as after the OOM reaper:
	 * in anonymous memory, do_anonymous_page() sees MMF_UNSTABLE and
	 * fails the fault, so the reader gets an error, not a zero page.  In
	 * a private file mapping, finish_fault() and fault-around
	 * (filemap_map_pages()) fail it too, rather than map the file's
	 * page-cache pages where the victim's own copies were.  Private file
	 * mappings never written are not unmapped (reap_vma_worth_it()):
	 * what is mapped there reads as before.
	 *
	 * The VMAs kept for the robust lists stay usable by the exit path:
	 * what it reads there the victim wrote (list heads, held mutexes),
	 * so a fault there is a swap-in, which MMF_UNSTABLE does not fail,
	 * and reclaim no longer even swaps out anonymous folios that only an
	 * MMF_UNSTABLE mm maps (folio_referenced_one()).  Only the futex
	 * word of a pending entry may be in a page never written, whose
	 * fault MMF_UNSTABLE fails: a mutex the thread was about to take or
	 * had just released in private memory no one else can wait on.
	 */
	/*
	 * The victim's exit records the high-water mark of its RSS for
	 * getrusage() and taskstats (do_exit()): from what it had, not from
	 * what we left it.
	 */
	update_hiwater_rss(mm);
	before = reap_mm_private(mm);
	trace_reap_on_kill_unmap(rok->task, rok->memcg_id, before,
				 reap_ns_between(rok->queued_ns, local_clock()));
	complete = __oom_reap_task_mm(mm, OOM_REAP_HELPERS, reap_vma_skipped,
				      keep);
	*freed = before - min(before, reap_mm_private(mm));

	/*
	 * Unlike the OOM reaper, we leave MMF_OOM_SKIP to exit_mmap(): the
	 * OOM killer must see this process as it sees any killed one.  With
	 * the flag, oom_badness() would skip it and task_will_free_mem()
	 * would fail for it, so an OOM that comes before it exits would kill
	 * another process instead of waiting for this one, although what we
	 * leave behind (hugetlb, shared memory, page tables, kept VMAs) is
	 * only freed by its exit.  Should the OOM killer pick it, the OOM
	 * reaper finds little left to do and sets the flag itself.
	 */
	if (!complete || (keep && keep->nr))
		return REAP_ON_KILL_PARTIAL;
	return REAP_ON_KILL_DONE;
}

/*
 * Does a process other than the victim use @mm?  Then it is not ours to
 * reap: the other process may live on (CLONE_VM partner, vfork parent or
 * child), and even a dying one walks robust futex lists we do not see.
 *
 * Mostly, the victim's threads hold all of mm_users, and then no other
 * process can: every task whose ->mm is @mm holds a reference until
 * after it cleared ->mm, and no process can start sharing it any more
 * (copy_process() fails in a group that is exiting).  We read mm_users
 * before the threads' ->mm, so a thread that drops both meanwhile is not
 * counted while its reference is.  Anything else holding a reference
 * (a sharer, or only a passing get_task_mm()) takes us to a scan of every
 * process, as task_will_free_mem() does.
 */
static bool reap_mm_shared(struct task_struct *victim, struct mm_struct *mm)
{
	int users = atomic_read(&mm->mm_users);
	int ours = 0;
	struct task_struct *p;
	bool shared = false;

	smp_rmb();	/* mm_users, then ->mm: pairs with mmput()'s barrier */
	rcu_read_lock();
	for_each_thread(victim, p)
		if (READ_ONCE(p->mm) == mm)
			ours++;
	if (users == ours)
		goto out;
	for_each_process(p) {
		if (!same_thread_group(p, victim) && process_shares_mm(p, mm)) {
			shared = true;
			break;
		}
	}
out:
	rcu_read_unlock();
	return shared;
}

/**
 * reap_mm - one attempt at reaping the victim's address space
 * @rok: the reap
 * @mm: the victim's address space, pinned with mmgrab()
 * @keep: VMAs left for robust futexes, filled in here
 * @freed: memory given back, see reap_mm_locked()
 *
 * We take no mm_users reference, only mmap_lock for reading, as the OOM
 * reaper does.  That is enough: exit_mmap() unmaps under mmap_lock for
 * reading too, and sets MMF_OOM_SKIP before it takes the lock for writing
 * to free the page tables and VMAs, so we unmap alongside it at worst.
 * A reference would make us the last user whenever the victim's threads
 * exit while we work: its final mmput() would move the whole teardown
 * (page tables, file mappings, exit_aio()) to our worker, outside the
 * victim's cpu.max, and make every exiting thread that owns the mm look
 * for a new owner through every process (mm_update_next_owner()).
 *
 * While the victim's threads hold mm_users, the robust lists matter, and
 * who else uses the mm.  Once it is zero, every thread walked its robust
 * list in exit_mm(), and no other process can hold it: the victim may be
 * crawling through exit_mmap() at 1% of a CPU, and we just unmap.  If the
 * last thread lets go after we looked, we keep VMAs that no one needs
 * any more, which exit_mmap() frees soon after.
 *
 * A core dump never runs into a reap: the kill path does not queue one for
 * a dumping process, and once the group is dying no dump can start.
 *
 * Return: REAP_ON_KILL_CONTENDED if mmap_lock was taken (try again
 * later), or how the reap ended.
 */
static enum reap_on_kill_result reap_mm(struct reap_on_kill *rok,
					struct mm_struct *mm,
					struct reap_keep *keep,
					unsigned long *freed)
{
	enum reap_on_kill_result result;

	if (mm_flags_test(MMF_OOM_SKIP, mm))
		return REAP_ON_KILL_DONE_ELSEWHERE;
	if (!mmap_read_trylock(mm))
		return REAP_ON_KILL_CONTENDED;

	if (!atomic_read(&mm->mm_users))
		result = reap_mm_locked(rok, mm, NULL, freed);
	else if (reap_mm_shared(rok->task, mm))
		result = REAP_ON_KILL_SHARED;
	else
		result = reap_mm_locked(rok, mm, keep, freed);
	mmap_read_unlock(mm);
	return result;
}

/*
 * memory.events:kill_reap counts the reaps that gave memory back, which is
 * what an admin watching it wants to know, not every reap that ran: one
 * that found only hugetlb, PFN, shared or clean file mappings, or an
 * address space exit_mmap() had already emptied, is not counted.
 *
 * It is counted where the tracepoints report it: in the memory cgroup the
 * victim was in when it was killed (and, in memory.events, its ancestors),
 * which, unless the victim moved since it allocated, is the one its pages
 * are charged to.  That cgroup is known by ID only: pinning it from the
 * kill path would keep a removed cgroup until the worker ran.  If it is
 * gone, the victim's cgroup of now stands in.  freed counts pages that
 * left the victim's page tables; one shared copy-on-write with a forked
 * child stays in memory with the child.
 */
static void reap_count_event(struct reap_on_kill *rok)
{
	struct cgroup_subsys_state *css = NULL;
	struct mem_cgroup *memcg;
	struct cgroup *cgrp;

	cgrp = cgroup_get_from_id(rok->memcg_id);
	if (!IS_ERR(cgrp)) {
		css = cgroup_get_e_css(cgrp, &memory_cgrp_subsys);
		cgroup_put(cgrp);
	}
	if (css) {
		memcg_memory_event(mem_cgroup_from_css(css), MEMCG_KILL_REAP);
		css_put(css);
		return;
	}

	rcu_read_lock();
	memcg = mem_cgroup_from_task(rok->task);
	if (memcg)
		memcg_memory_event(memcg, MEMCG_KILL_REAP);
	rcu_read_unlock();
}

/**
 * reap_retry - come back later if the reap could not be done now
 * @rok: the reap
 * @result: how this attempt ended
 *
 * Two things make the worker wait rather than give up, both because the
 * victim is in the middle of something it will finish on its way out:
 * mmap_lock held for writing (or with a writer queued), often by the
 * victim itself, throttled or starved inside mmap(), munmap(), brk() or
 * fork(), which is just when the reap is needed; and a robust futex list
 * in pages that are not resident, which its thread's exit path will fault
 * in (see reap_keep_robust_lists()).  mmap_lock is only ever trylocked, so
 * that a writer cannot wedge a worker; the work is queued again instead,
 * holding the task reference and the mm pin but no mm_users reference.
 *
 * The delay doubles from a jiffy up to REAP_RETRY_MAX_MS, so the memory
 * comes back at most that long after the victim let go.  Each attempt
 * costs a timer, a trylock and, for a robust list, a walk of the lists,
 * all walks of one reap sharing REAP_ROBUST_BUDGET: a reap that spends it
 * ends, freeing nothing.  Attempts end when the reap could be done, when
 * exit_mmap() set MMF_OOM_SKIP, or after REAP_RETRY_TIMEOUT_MS: a victim
 * stuck that long (in D state with mmap_lock held, say) frees its memory
 * itself, if ever, and the reap ends with @result.
 *
 * Return: true if the work was queued again.
 */
static bool reap_retry(struct reap_on_kill *rok,
		       enum reap_on_kill_result result)
{
	unsigned int shift = min(rok->attempts - 1, ilog2(REAP_RETRY_MAX_MS));
	u64 waited = reap_ns_between(rok->started_ns, local_clock());

	if (result != REAP_ON_KILL_CONTENDED &&
	    result != REAP_ON_KILL_ROBUST_NOT_RESIDENT)
		return false;
	if (waited > (u64)REAP_RETRY_TIMEOUT_MS * NSEC_PER_MSEC)
		return false;
	/* Not queued by anyone else: the work runs once at a time. */
	queue_delayed_work(reap_on_kill_wq, &rok->dwork,
			   msecs_to_jiffies(1U << shift));
	return true;
}

/* The end of a reap: report it, then drop what the kill path took. */
static void reap_finish(struct reap_on_kill *rok,
			enum reap_on_kill_result result, unsigned long freed,
			unsigned int kept_vmas)
{
	struct task_struct *victim = rok->task;

	if (freed)
		reap_count_event(rok);
	trace_reap_on_kill_finish(victim, rok->memcg_id, freed, kept_vmas,
				  reap_ns_between(rok->started_ns, local_clock()),
				  result, rok->attempts - 1, rok->robust_reads);
	/* rok lives in victim->signal: drop the mm before the victim. */
	reap_put_mm(rok);
	put_task_struct(victim);
}

static void reap_on_kill_work(struct work_struct *work)
{
	struct reap_on_kill *rok = container_of(to_delayed_work(work),
						struct reap_on_kill, dwork);
	struct reap_keep keep = { };
	enum reap_on_kill_result result;
	unsigned long freed = 0;
	struct mm_struct *mm;

	mm = reap_get_mm(rok);
	if (!rok->attempts++) {
		rok->started_ns = local_clock();
		trace_reap_on_kill_start(rok->task, rok->memcg_id,
					 mm ? reap_mm_private(mm) : 0,
					 reap_ns_between(rok->queued_ns,
							 rok->started_ns));
	}

	result = mm ? reap_mm(rok, mm, &keep, &freed) :
		      REAP_ON_KILL_EXITED;
	if (!reap_retry(rok, result))
		reap_finish(rok, result, freed, keep.nr);
}

/*
 * memcg->reap_on_kill is what was written; memcg->reap_on_kill_effective is
 * whether it or any ancestor has it, which is what decides a kill.  Writers
 * recompute the subtree under reap_on_kill_mutex; a new cgroup inherits
 * under the same mutex, and is visible to the walk before it is onlined,
 * so neither can miss the other.
 */
static void reap_on_kill_propagate(struct mem_cgroup *memcg)
{
	struct cgroup_subsys_state *css;

	lockdep_assert_held(&reap_on_kill_mutex);
	rcu_read_lock();
	css_for_each_descendant_pre(css, &memcg->css) {
		struct mem_cgroup *pos = mem_cgroup_from_css(css);
		struct mem_cgroup *parent = parent_mem_cgroup(pos);

		WRITE_ONCE(pos->reap_on_kill_effective, pos->reap_on_kill ||
			   (parent && parent->reap_on_kill_effective));
	}
	rcu_read_unlock();
}

void reap_on_kill_css_online(struct mem_cgroup *memcg)
{
	struct mem_cgroup *parent = parent_mem_cgroup(memcg);

	mutex_lock(&reap_on_kill_mutex);
	WRITE_ONCE(memcg->reap_on_kill_effective,
		   parent && parent->reap_on_kill_effective);
	mutex_unlock(&reap_on_kill_mutex);
}

/*
 * A removed cgroup has no tasks left to kill, but may linger offline for
 * as long as pages are charged to it: let the key go now.
 */
void reap_on_kill_css_offline(struct mem_cgroup *memcg)
{
	mutex_lock(&reap_on_kill_mutex);
	if (memcg->reap_on_kill) {
		WRITE_ONCE(memcg->reap_on_kill, false);
		static_branch_slow_dec_deferred(&reap_on_kill_key);
	}
	mutex_unlock(&reap_on_kill_mutex);
}

int memory_reap_on_kill_show(struct seq_file *m, void *v)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(seq_css(m));

	seq_printf(m, "%d\n", READ_ONCE(memcg->reap_on_kill));
	return 0;
}

ssize_t memory_reap_on_kill_write(struct kernfs_open_file *of, char *buf,
				  size_t nbytes, loff_t off)
{
	struct mem_cgroup *memcg = mem_cgroup_from_css(of_css(of));
	bool enable;

	if (sysfs_streq(buf, "1"))
		enable = true;
	else if (sysfs_streq(buf, "0"))
		enable = false;
	else
		return -EINVAL;

	if (!reap_on_kill_wq || !reap_on_kill_cache)
		return -ENOMEM;

	mutex_lock(&reap_on_kill_mutex);
	if (enable != memcg->reap_on_kill) {
		/* Enable the hook before any task can be covered ... */
		if (enable)
			static_branch_deferred_inc(&reap_on_kill_key);
		WRITE_ONCE(memcg->reap_on_kill, enable);
		reap_on_kill_propagate(memcg);
		/* ... and disable it only after none is. */
		if (!enable)
			static_branch_slow_dec_deferred(&reap_on_kill_key);
	}
	mutex_unlock(&reap_on_kill_mutex);
	return nbytes;
}

static int __init reap_on_kill_init(void)
{
	/*
	 * Unbound and high priority: not limited by the victim's cpu.max,
	 * cpuset or nice level, and one worker per victim so that many
	 * victims are reaped in parallel.  WQ_MEM_RECLAIM provides a
	 * rescuer, as memory is short when we are needed most; the rescuer
	 * runs items one by one, and none of them sleeps for a lock or faults
	 * memory in: whatever the victim holds is waited for by queueing the
	 * work again.
	 */
	reap_on_kill_wq = alloc_workqueue("reap_on_kill",
					  WQ_UNBOUND | WQ_HIGHPRI |
					  WQ_MEM_RECLAIM, 0);
	reap_on_kill_cache = KMEM_CACHE(reap_on_kill, SLAB_ACCOUNT);
	return reap_on_kill_wq && reap_on_kill_cache ? 0 : -ENOMEM;
}
subsys_initcall(reap_on_kill_init);
