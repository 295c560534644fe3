// SPDX-License-Identifier: GPL-2.0
/*
 * memory.reap_on_kill: reap a killed process without waiting for it
 *
 * A killed process frees its memory in its own exit path, late if it is
 * throttled, starved or blocked.  With memory.reap_on_kill in effect for
 * its memory cgroup, complete_signal() queues a reap as the group exit
 * starts, and a worker of an unbound high-priority workqueue unmaps the
 * private memory with the OOM reaper's walk, outside the victim's cpu.max.
 *
 * Unlike the OOM reaper, this is not an OOM kill: the victim gets no
 * TIF_MEMDIE, oom_mm or reserves, and the OOM killer sees it as it sees
 * any killed process (see reap_mm_locked()).  The worker never sleeps on
 * the victim: mmap_lock is trylocked and nothing is faulted in; the work
 * is queued again instead (reap_retry()).  Robust futex lists are kept
 * for the exit path (reap_keep_robust_lists()), and an mm that another
 * process uses is left alone (reap_mm_shared()).
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
 * On while any memory cgroup has the setting.  Deferred, so that a loop of
 * writes in a delegated cgroup patches the text of every CPU at most twice
 * a second.
 */
DEFINE_STATIC_KEY_DEFERRED_FALSE(reap_on_kill_key, HZ);

/**
 * struct reap_on_kill - the reap of a killed process
 * @dwork: runs the reap, again later while it cannot be done yet
 * @mm: the address space, pinned with mmgrab(); NULL until pinned,
 *	REAP_MM_TAKEN once the reap is over (see reap_pin_mm())
 * @task: a live thread of the victim at the kill, referenced: it keeps
 *	the signal_struct, and so this reap, alive
 * @memcg_id: cgroup ID of the victim's memory cgroup at the kill
 * @deadline: jiffies after which the worker stops trying again
 * @attempts: how many times the worker ran
 * @robust_reads: robust list reads so far, see REAP_ROBUST_BUDGET
 * @fenced: no thread of the victim runs user code any more
 *
 * Hung on the victim's signal_struct until that is freed: a process
 * group-exits once, and exit_mm() looks there for a pending reap.  Fields
 * past @task belong to the worker.
 */
struct reap_on_kill {
	struct delayed_work dwork;
	struct mm_struct *mm;
	struct task_struct *task;
	u64 memcg_id;
	unsigned long deadline;
	unsigned int attempts;
	unsigned int robust_reads;
	bool fenced;
};

static struct workqueue_struct *reap_on_kill_wq;

/* Allocated as the sigqueue is: GFP_ATOMIC, accounted; or a plain kill. */
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
 * Robust list words read (and threads looked at) for one reap over all its
 * attempts, before it keeps the whole address space: the worker's time is
 * not charged to the victim.
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
 * A private file mapping without an anon_vma was never written and maps
 * only page cache: unmapping it frees nothing, so program text is left to
 * exit_mmap() rather than cost the worker a page-table walk.
 */
static bool reap_vma_worth_it(struct vm_area_struct *vma)
{
	return vma_is_anonymous(vma) || READ_ONCE(vma->anon_vma);
}

/*
 * The first pin wins; after the reap, REAP_MM_TAKEN makes every pin lose.
 * A loser's mmdrop() is never the last: the caller holds its own reference.
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
 * Under siglock, only a trylock of the irq-unsafe task_lock() adds no lock
 * dependency; in an interrupt, not even that.  The worker finds it later.
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

void __reap_on_kill_queue(struct task_struct *target, u64 memcg_id)
{
	struct task_struct *p = reap_on_kill_live_thread(target);
	struct signal_struct *sig = p->signal;
	struct reap_on_kill *rok;
	bool pinned;

	lockdep_assert_held(&p->sighand->siglock);

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

/* The pinned mm, pinned here through a thread if no one else could. */
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

/* Drop the pin, if any, and close the slot: a later pin would leak. */
static void reap_put_mm(struct reap_on_kill *rok)
{
	struct mm_struct *mm = xchg(&rok->mm, REAP_MM_TAKEN);

	if (mm)
		mmdrop(mm);
}

static bool reap_vma_kept(const struct reap_keep *keep,
			  const struct vm_area_struct *vma)
{
	unsigned int i;

	for (i = 0; i < keep->nr; i++)
		if (keep->vma[i] == vma)
			return true;
	return false;
}

#ifdef CONFIG_FUTEX
static void reap_fence_ipi(void *unused)
{
}

/*
 * Make sure no thread of the victim runs user code again, so that its
 * robust lists change only in its exit path.  Each thread got
 * TIF_SIGPENDING before the work was queued: one off a CPU acts on it
 * before it returns to user mode, one on a CPU as our IPI returns.
 * uprobe_deny_signal() holds the signal back only until the out-of-line
 * step is aborted.
 *
 * Kernel code may still end a robust unlock after the fence: the vDSO
 * unlock fix-up on interrupt exit (futex_fixup_robust_unlock()) and
 * FUTEX_ROBUST_UNLOCK (futex_robust_unlock(), futex_unlock_pi()) only
 * clear list_op_pending or release a futex word: we keep at worst more than
 * the exit path needs, and a late store into a reaped private word
 * concerns only the dying process.
 *
 * set_robust_list() registers a list under task_lock() and not once
 * SIGKILL is pending; the kill made it pending before queue_work(), which
 * orders it before our task_lock().
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
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(addr); k++) {
		vma = vma_lookup(mm, addr[k]);
		/* No VMA: the exit path faults anyway; unwanted: stays anyway. */
		if (!vma || !oom_reap_vma_wanted(vma) || reap_vma_kept(keep, vma))
			continue;
		if (keep->nr == REAP_KEEP_MAX)
			return false;
		keep->vma[keep->nr++] = vma;
	}
	return true;
}

/*
 * Read @size bytes at @addr, within one page, from the page tables as the
 * victim's exit path would find them, without faulting.  Under RCU, so
 * hugetlb (whose walk may sleep) is not read.
 *
 * Return: 0; -EFAULT where the exit path's read fails for good (its walk
 * stops there); -EAGAIN where that read would fault the page in, or for
 * hugetlb; -EOPNOTSUPP for memory without a readable struct page.
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

/* reap_read_page() for @size < PAGE_SIZE anywhere; -E2BIG past budget. */
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

/* A read that fails for good ends the walk, as in exit_robust_list(). */
static int reap_list_end(int ret)
{
	return ret == -EFAULT ? 0 : ret;
}

/*
 * Keep what exit_robust_list() will touch of one list, read in its order
 * and limit: the head, each entry and its futex word, the pending one's
 * word.  An empty list needs nothing: no mutex to release.
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

/* A thread costs one read too: restarted walks stay bounded. */
static int reap_keep_thread_list(struct reap_keep *keep,
				 struct mm_struct *mm, struct task_struct *t)
{
	struct robust_list_head __user *head;
	bool compat = false;

	if (!keep->budget)
		return -E2BIG;
	keep->budget--;
	/* See reap_fence_user_mode(); the exit path clears it unlocked. */
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
 * The thread after @t, letting the CPU go in between.  If @t left the
 * thread list meanwhile (its exit path walked its list), its next pointer
 * may be stale: start again.  What is kept only grows, and the budget
 * bounds the reads done again.
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
 * reap_keep_robust_lists - keep what the victim's exit path still needs
 * @rok: the reap
 * @keep: VMAs to leave in place
 * @mm: the victim's address space, with mmap_lock held for reading
 *
 * A dying thread's exit path marks the robust mutexes on its list
 * FUTEX_OWNER_DIED, in user memory; unmapped, waiters in other processes
 * would block forever (hence the OOM reaper's two-second delay).  Most
 * lists are empty, and need no memory; for the others we keep every VMA
 * the exit path will touch and reap the rest at once.
 *
 * We never fault a list in: that could charge the victim's memcg, OOM on
 * its behalf or block on a dead file server.  A list not resident waits
 * for its thread's exit path, which faults it in and clears the pointer
 * (-EAGAIN, see reap_retry()).  A compat list, more than REAP_KEEP_MAX
 * VMAs or REAP_ROBUST_BUDGET reads keep the whole address space.
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

/* What the reap leaves to the exit path of what the OOM reaper unmaps. */
static bool reap_vma_skipped(struct vm_area_struct *vma, void *keep)
{
	return !reap_vma_worth_it(vma) || (keep && reap_vma_kept(keep, vma));
}

/* What a reap can give back: anonymous pages and swap entries. */
static unsigned long reap_mm_private(struct mm_struct *mm)
{
	return get_mm_counter_sum(mm, MM_ANONPAGES) +
	       get_mm_counter_sum(mm, MM_SWAPENTS);
}

/*
 * Unmap what can go, with mmap_lock held for reading.  @keep is NULL once
 * mm_users is 0: every thread walked its robust list in exit_mm().
 * *@freed is how far reap_mm_private() fell meanwhile, which includes what
 * a concurrent exit_mmap() freed.
 */
static enum reap_on_kill_result reap_mm_locked(struct reap_on_kill *rok,
					       struct mm_struct *mm,
					       struct reap_keep *keep,
					       unsigned long *freed)
{
	unsigned long before;
	bool complete;

	/* The OOM reaper or exit_mmap() got here first. */
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
	 * MMF_UNSTABLE, set by __oom_reap_task_mm(), makes a remote reader's
	 * fault on a reaped page fail rather than map a zero page or the
	 * file's bytes, and makes swapoff skip the mm, as after the OOM
	 * reaper.  The kept VMAs hold what the victim wrote: a fault there is
	 * a swap-in, which MMF_UNSTABLE does not fail.  Only a pending
	 * entry's futex word may lie in a page never written: the exit path
	 * then skips that wake-up, as after the OOM reaper; it matters only
	 * for a lock that others share and the victim mapped privately.
	 *
	 * getrusage() and taskstats report the RSS the victim had.
	 */
	update_hiwater_rss(mm);
	before = reap_mm_private(mm);
	trace_reap_on_kill_unmap(rok->task, rok->memcg_id, before);
	complete = __oom_reap_task_mm(mm, OOM_REAP_HELPERS, reap_vma_skipped,
				      keep);
	*freed = before - min(before, reap_mm_private(mm));

	/*
	 * Unlike the OOM reaper, leave MMF_OOM_SKIP to exit_mmap(): this is
	 * no OOM victim, and the OOM killer scores it by what is left, as any
	 * killed process.
	 */
	if (!complete || (keep && keep->nr))
		return REAP_ON_KILL_PARTIAL;
	return REAP_ON_KILL_DONE;
}

/*
 * Does another process use @mm (CLONE_VM, vfork)?  It may live on, or
 * have robust lists we do not see.  If the victim's threads hold every
 * mm_users reference, no one else can (copy_process() fails in an exiting
 * group); otherwise scan, as task_will_free_mem() does.  mm_users is read
 * first, so a thread that drops both meanwhile costs a scan, never a miss.
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
 * Like the OOM reaper, we hold mmap_lock for reading and no mm_users
 * reference: exit_mmap() sets MMF_OOM_SKIP before it write-locks to free
 * the page tables.  A reference could make the worker the last user, and
 * move the whole teardown outside the victim's cpu.max.
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
 * kill_reap counts reaps that gave memory back, in the memory cgroup of the
 * kill (known by ID, so as not to pin a removed one), else the victim's.
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
 * mmap_lock write-locked (often by the victim itself, throttled inside
 * mmap() or fork()) and a robust list not resident are both things the
 * victim finishes on its way out; a writer must not wedge the worker, so
 * the work is queued again, with a delay doubling from a jiffy to
 * REAP_RETRY_MAX_MS, for at most REAP_RETRY_TIMEOUT_MS.
 *
 * Return: true if the work was queued again.
 */
static bool reap_retry(struct reap_on_kill *rok,
		       enum reap_on_kill_result result)
{
	unsigned int shift = min(rok->attempts - 1, ilog2(REAP_RETRY_MAX_MS));

	if (result != REAP_ON_KILL_CONTENDED &&
	    result != REAP_ON_KILL_ROBUST_NOT_RESIDENT)
		return false;
	if (time_after(jiffies, rok->deadline))
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
		rok->deadline = jiffies + msecs_to_jiffies(REAP_RETRY_TIMEOUT_MS);
		trace_reap_on_kill_start(rok->task, rok->memcg_id,
					 mm ? reap_mm_private(mm) : 0);
	}

	result = mm ? reap_mm(rok, mm, &keep, &freed) :
		      REAP_ON_KILL_EXITED;
	if (!reap_retry(rok, result))
		reap_finish(rok, result, freed, keep.nr);
}

/*
 * reap_on_kill_effective: set here or on an ancestor.  Writers recompute
 * the subtree, and a new cgroup inherits, under reap_on_kill_mutex; a new
 * cgroup is visible to the walk before it is onlined.
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

/* An offline cgroup has no tasks to kill, but may linger: drop the key. */
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
	 * Unbound and high priority, outside the victim's cpu.max, cpuset and
	 * nice level; a rescuer, as memory is short when we are needed, and
	 * no item ever sleeps on the victim.
	 */
	reap_on_kill_wq = alloc_workqueue("reap_on_kill",
					  WQ_UNBOUND | WQ_HIGHPRI |
					  WQ_MEM_RECLAIM, 0);
	reap_on_kill_cache = KMEM_CACHE(reap_on_kill, SLAB_ACCOUNT);
	return reap_on_kill_wq && reap_on_kill_cache ? 0 : -ENOMEM;
}
subsys_initcall(reap_on_kill_init);
