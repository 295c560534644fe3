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
 *	context (an itimer's SIGALRM).  It checks the memcg's effective flag,
 *	takes a task reference and queues the work embedded in signal_struct:
 *	no allocation, no sleeping lock.  In task context it also pins the mm
 *	with a trylock of the task lock; where it cannot, see below.
 *
 * exit_mm() -> reap_on_kill_exit_mm()
 *	A victim that runs its exit path before the worker did pins the mm on
 *	its way out.  This closes the window in which every thread passed
 *	exit_mm() while a /proc reader, AIO or process_vm_readv() keeps the mm
 *	alive but out of reach of its tasks: either the kill path, the worker
 *	(under task_lock) or the last exiting thread pins it.  The worker then
 *	takes the pin and closes the slot, so a pin can never be left behind.
 *
 * reap_on_kill_work()
 *	Leaves the mm alone if any other process uses it (a CLONE_VM partner,
 *	a vfork parent or child): that process may live on, or have robust
 *	futex lists of its own in the memory.  Otherwise it unmaps private
 *	memory VMA by VMA under mmap_lock taken for read
 *	with a bounded number of trylocks, so a stuck writer cannot wedge the
 *	worker.  Remote readers get errors, not zeroes, for reaped anonymous
 *	memory, and may read a reaped private file mapping's file contents,
 *	see reap_mm_locked().  Robust futex lists are honoured, see
 *	reap_keep_robust_lists().
 *
 * What it never does: it does not make the victim an OOM victim (no
 * TIF_MEMDIE, no signal->oom_mm, no access to memory reserves), adds no
 * signal semantics and no syscall, and costs kill() a patched-out branch
 * while no cgroup uses it; while one does, tasks outside covered cgroups
 * pay a look-up of their memory cgroup per fatal signal.
 */

#include <linux/cgroup.h>
#include <linux/compat.h>
#include <linux/delay.h>
#include <linux/futex.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/mmu_context.h>
#include <linux/oom.h>
#include <linux/reap_on_kill.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/reap_on_kill.h>

DEFINE_STATIC_KEY_FALSE(reap_on_kill_key);

static struct workqueue_struct *reap_on_kill_wq;

/* Serializes writers of memcg->reap_on_kill and its propagation. */
static DEFINE_MUTEX(reap_on_kill_mutex);

/*
 * mmap_lock is only ever trylocked.  A writer that holds it while throttled
 * is waited for with a growing sleep: 1 + 2 + ... + 256 ms, half a second,
 * before the victim is left to free its own memory.
 */
#define REAP_LOCK_ATTEMPTS	10

/* Distinct VMAs the robust futex lists may keep alive, see below. */
#define REAP_KEEP_MAX		16

/*
 * Robust list entries and threads the worker looks at, in all, before it
 * gives up and keeps the whole address space: the walk runs under RCU.
 */
#define REAP_ROBUST_BUDGET	65536

/* rok->mm once the worker took it: later pins fail and drop their own. */
#define REAP_MM_TAKEN		((struct mm_struct *)-1L)

/* The VMAs the victim's exit path will still read. */
struct reap_keep {
	unsigned int nr;
	unsigned int budget;	/* reads left, see REAP_ROBUST_BUDGET */
	struct vm_area_struct *vma[REAP_KEEP_MAX];
};

/**
 * __reap_on_kill_pin_mm - give a pending reap its address space
 * @rok: the reap
 * @mm: the address space, kept alive by the caller for the duration
 *
 * The first caller wins; once the worker took the pin, @rok->mm stays
 * REAP_MM_TAKEN and later callers lose.  A loser's mmdrop() is never the
 * final one: the caller's own reference (task->mm under task_lock, or
 * current->mm) holds mm_count above ours.
 */
void __reap_on_kill_pin_mm(struct reap_on_kill *rok, struct mm_struct *mm)
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
		__reap_on_kill_pin_mm(rok, p->mm);
	spin_unlock(&p->alloc_lock);
	return !!READ_ONCE(rok->mm);
}

static bool task_reap_on_kill(struct task_struct *p, u64 *memcg_id)
{
	struct mem_cgroup *memcg;
	bool covered;

	rcu_read_lock();
	memcg = mem_cgroup_from_task(p);
	covered = memcg && READ_ONCE(memcg->reap_on_kill_effective);
	if (covered)
		*memcg_id = cgroup_id(memcg->css.cgroup);
	rcu_read_unlock();
	return covered;
}

static void reap_on_kill_work(struct work_struct *work);

void __reap_on_kill_queue(struct task_struct *p)
{
	struct signal_struct *sig = p->signal;
	struct reap_on_kill *rok = &sig->reap_on_kill;
	u64 memcg_id;
	bool pinned;

	lockdep_assert_held(&p->sighand->siglock);

	/* SIGKILL interrupting a core dump: the dumper still reads the mm. */
	if (sig->core_state || (p->flags & PF_KTHREAD))
		return;
	if (!task_reap_on_kill(p, &memcg_id))
		return;
	if (test_and_set_bit(REAP_ON_KILL_QUEUED, &rok->flags))
		return;

	get_task_struct(p);
	rok->task = p;
	rok->memcg_id = memcg_id;
	rok->queued_ns = local_clock();
	pinned = reap_pin_mm_now(rok, p);
	INIT_WORK(&rok->work, reap_on_kill_work);
	queue_work(reap_on_kill_wq, &rok->work);
	trace_reap_on_kill_queue(p, memcg_id, pinned);
}

/*
 * Pin the mm through any thread that still has it, then take whatever pin
 * there is, ours or one exit_mm() made meanwhile, and close the slot.
 */
static struct mm_struct *reap_take_mm(struct reap_on_kill *rok)
{
	struct task_struct *p;

	if (!READ_ONCE(rok->mm)) {
		p = find_lock_task_mm(rok->task);
		if (p) {
			__reap_on_kill_pin_mm(rok, p->mm);
			task_unlock(p);
		}
	}
	return xchg(&rok->mm, REAP_MM_TAKEN);
}

#ifdef CONFIG_FUTEX
static void reap_fence_ipi(void *unused)
{
}

/*
 * Wait until no thread of the victim can run user code again, so its robust
 * futex lists can change only through its own exit path.  Every thread got
 * TIF_SIGPENDING under siglock before the work was queued.  A thread that is
 * not on a CPU gets back to user mode only through exit_to_user_mode(),
 * which acts on the SIGKILL first.  A thread on a CPU is interrupted by our
 * IPI, and leaving the interrupt does the same.
 *
 * Uprobes let no thread through either.  A thread that is to single-step a
 * probed instruction out of line when it finds the SIGKILL has get_signal()
 * turned down by uprobe_deny_signal(), which clears TIF_SIGPENDING.  But as
 * complete_signal() put SIGKILL in every thread's own pending set, it also
 * marks the step trapped and sets TIF_UPROBE, so exit_to_user_mode_loop()
 * goes round again: handle_singlestep() aborts the step without executing
 * the instruction (arch_uprobe_abort_xol()) and sets TIF_SIGPENDING again,
 * and the next get_signal() acts on the SIGKILL.  A thread that hit a
 * probe's breakpoint gets there too, after handle_swbp() ran the handlers
 * in the kernel, which write no robust list state.
 *
 * What the fence does not stop is kernel code that changes robust list
 * state for a thread without looking at signals, when the thread was
 * already on its way through it as the kill came.
 *
 * Writes to user memory that end a robust unlock may come after the fence:
 * a thread interrupted inside the vDSO's robust unlock sequence gets its
 * list_op_pending cleared on the way out of the interrupt
 * (futex_fixup_robust_unlock()), after our IPI returned, and one already
 * inside futex() with FUTEX_ROBUST_UNLOCK stores 0 to the futex word, then
 * clears list_op_pending (futex_robust_unlock(), futex_unlock_pi()).  The
 * pending pointer, in the list head, only ever goes to NULL.  If we read
 * the old value, we keep more than the exit path needs; if we read NULL,
 * the exit path finds NULL as well.  The head itself is kept whenever the
 * exit path has anything to do; otherwise a late write into a reaped head
 * faults (MMF_UNSTABLE), and the kernel, like the walk, gives up
 * harmlessly.  A futex word that a waiter in another process sleeps on is
 * in memory shared with it, which is never reaped; a store that misses a
 * reaped private word concerns only the dying process.
 *
 * set_robust_list() (and its compat twin) is a single store to the
 * thread's list pointer.  A thread that entered it before the kill may
 * store after our walk: on its CPU, our IPI returns before it does;
 * preempted in between, task_curr() does not even see it.  The exit path
 * then walks a list we did not: if its head or entries lie in memory we reaped, the exit path
 * faults on them and gives up, and the robust mutexes it names get no
 * FUTEX_OWNER_DIED for their waiters.  We accept that window: it needs a
 * thread killed in the middle of registering a list that already names
 * mutexes it holds.  glibc registers its list when a thread starts and in
 * the child after fork(), emptied first, and an empty list needs nothing of
 * the memory (see reap_keep_robust_list()).  Closing it would take
 * set_robust_list() testing for a group exit under siglock, as
 * complete_signal() sets it, on every thread creation, for a use that no
 * known library makes.
 */
static void reap_fence_user_mode(struct task_struct *victim)
{
	struct task_struct *t;

	rcu_read_lock();
	for_each_thread(victim, t) {
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

/* Read the victim's memory as the exit path will, within the budget. */
static int reap_read_user(struct reap_keep *keep, struct mm_struct *mm,
			  void *dst, const void __user *uptr, size_t size)
{
	if (!keep->budget--)
		return -E2BIG;
	uptr = (const void __user *)untagged_addr_remote(mm, (unsigned long)uptr);
	if (copy_from_user_nofault(dst, uptr, size))
		return -EFAULT;
	return 0;
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
	*entry = (struct robust_list __user *)(val & ~1UL);
	return 0;
}

/*
 * Collect what exit_robust_list() will read and write of one thread's list:
 * the head, each entry and its futex word, and the pending entry's futex
 * word.  An empty list needs nothing kept: the exit path reads the head,
 * and if that faults it has no mutex to release anyway.
 */
static int reap_keep_robust_list(struct reap_keep *keep, struct mm_struct *mm,
				 struct robust_list_head __user *head)
{
	struct robust_list __user *entry, *pending;
	unsigned int limit = ROBUST_LIST_LIMIT;
	long futex_offset;

	if (reap_fetch_entry(keep, mm, &entry, &head->list.next) ||
	    reap_fetch_entry(keep, mm, &pending, &head->list_op_pending) ||
	    reap_read_user(keep, mm, &futex_offset, &head->futex_offset,
			   sizeof(futex_offset)))
		return -EFAULT;

	if (entry == &head->list && !pending)
		return 0;
	if (!reap_keep_range(keep, mm, head, sizeof(*head)))
		return -ENOSPC;

	while (entry != &head->list) {
		if (!reap_keep_range(keep, mm, entry, sizeof(*entry)) ||
		    !reap_keep_range(keep, mm, (void __user *)entry + futex_offset,
				     sizeof(u32)))
			return -ENOSPC;
		if (reap_fetch_entry(keep, mm, &entry, &entry->next))
			return -EFAULT;
		if (!--limit)
			break;
	}
	if (pending && !reap_keep_range(keep, mm,
					(void __user *)pending + futex_offset,
					sizeof(u32)))
		return -ENOSPC;
	return 0;
}

/**
 * reap_keep_robust_lists - find what the victim's exit path still needs
 * @keep: VMAs to leave in place
 * @victim: a thread of the killed process
 * @mm: its address space, with mmap_lock held for reading
 *
 * When a thread holding a robust mutex dies, its exit path walks its robust
 * futex list in user memory and marks each mutex FUTEX_OWNER_DIED, so that
 * waiters in other processes get EOWNERDEAD.  Had we unmapped that memory,
 * the walk would fault and the waiters would block forever; this is why the
 * OOM reaper waits two seconds before it starts.  We do better: glibc
 * registers a list head for every thread, but a list is empty unless the
 * thread holds a robust mutex, and then the exit path needs no memory at
 * all.  Otherwise we walk the list as the exit path will and keep every VMA
 * it touches; the rest is reaped at once.
 *
 * The lists are read without faulting, under kthread_use_mm(), after
 * reap_fence_user_mode() stopped user space from changing them; what the
 * kernel may still change on the victim's behalf, and the one window we
 * accept (a thread inside set_robust_list()), are described there.  A
 * list we cannot read completely, a compat list, one spread over more
 * than REAP_KEEP_MAX VMAs, or more than REAP_ROBUST_BUDGET reads in all
 * keep the whole address space.
 *
 * Return: 0, or a negative errno if nothing may be reaped.
 */
static int reap_keep_robust_lists(struct reap_keep *keep,
				  struct task_struct *victim,
				  struct mm_struct *mm)
{
	struct robust_list_head __user *head;
	struct task_struct *t;
	int ret = 0;

	reap_fence_user_mode(victim);
	keep->budget = REAP_ROBUST_BUDGET;
	kthread_use_mm(mm);
	rcu_read_lock();
	for_each_thread(victim, t) {
#ifdef CONFIG_COMPAT
		if (READ_ONCE(t->futex.compat_robust_list)) {
			ret = -EOPNOTSUPP;
			break;
		}
#endif
		head = READ_ONCE(t->futex.robust_list);
		if (!head)
			continue;
		ret = reap_keep_robust_list(keep, mm, head);
		if (ret)
			break;
	}
	rcu_read_unlock();
	kthread_unuse_mm(mm);
	return ret;
}
#else /* !CONFIG_FUTEX: no robust futex lists to honour */
static int reap_keep_robust_lists(struct reap_keep *keep,
				  struct task_struct *victim,
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
 * Unmap the private memory of one VMA, as __oom_reap_task_mm() does: shared
 * mappings stay (their pages live on in the page cache or in other
 * processes), and exit_mmap() tears down hugetlb and PFN mappings itself.
 *
 * Return: 0, or -EBUSY if an MMU notifier would have blocked.
 */
static int reap_vma(struct vm_area_struct *vma)
{
	if (vma->vm_flags & (VM_HUGETLB | VM_PFNMAP))
		return 0;
	if (!vma_is_anonymous(vma) && (vma->vm_flags & VM_SHARED))
		return 0;
	return zap_vma_for_reaping(vma);
}

static bool reap_mmap_read_trylock(struct mm_struct *mm)
{
	int attempt;

	for (attempt = 0; ; attempt++) {
		if (mmap_read_trylock(mm))
			return true;
		if (attempt == REAP_LOCK_ATTEMPTS - 1)
			return false;
		msleep(1 << attempt);
	}
}

/*
 * Unmap what can go; called with mmap_lock held for reading.  @keep is NULL
 * once exit_mmap() owns the mm: the robust lists were walked in exit_mm().
 *
 * *@freed is how far the RSS fell while we unmapped, read under the lock
 * and before our mm_users reference goes: the teardown that mmput_async()
 * may start is not ours.  It still includes what exit_mmap() unmapped
 * meanwhile when we reap beside it (no lock keeps it out of our way), and
 * what a victim thread caught inside munmap() after its downgrade of
 * mmap_lock unmapped.  It stays 0 when we unmapped nothing.
 */
static enum reap_result reap_mm_locked(struct task_struct *victim,
				       struct mm_struct *mm,
				       struct reap_keep *keep,
				       unsigned long *freed)
{
	struct vm_area_struct *vma;
	bool complete = true;
	unsigned long rss;

	MA_STATE(mas, &mm->mm_mt, ULONG_MAX, ULONG_MAX);

	/*
	 * The OOM reaper got here first, or exit_mmap() is past the point
	 * where it unmaps and is about to free the page tables.
	 */
	if (mm_flags_test(MMF_OOM_SKIP, mm))
		return REAP_DONE_ELSEWHERE;
	if (keep && reap_keep_robust_lists(keep, victim, mm)) {
		/* No reap, so no VMA kept out of one: kept_vmas reports 0. */
		keep->nr = 0;
		return REAP_ROBUST_UNKNOWN;
	}

	/*
	 * What a remote reader (/proc/pid/mem, process_vm_readv(), ptrace)
	 * that faults on a reaped page then gets, as after the OOM reaper:
	 * in anonymous memory, do_anonymous_page() sees MMF_UNSTABLE and
	 * fails the fault, so the reader gets an error, not a zero page.  In
	 * a private file mapping, finish_fault() fails it too, but only when
	 * the page had to be read in: fault-around (filemap_map_pages())
	 * maps what it finds in the page cache without that check.  There
	 * the reader sees the file's contents, not what the victim had
	 * written to its private copy.  The victim never runs user code
	 * again to see either.
	 */
	mm_flags_set(MMF_UNSTABLE, mm);
	rss = get_mm_rss_sum(mm);
	/*
	 * From the top down, as the OOM reaper does: a victim running its own
	 * exit_mmap() meanwhile unmaps from the bottom up, and the two meet
	 * once instead of contending for each page table lock in turn.
	 */
	mas_for_each_rev(&mas, vma, 0) {
		if (keep && reap_vma_kept(keep, vma))
			continue;
		if (reap_vma(vma))
			complete = false;
	}
	*freed = rss - min(rss, get_mm_rss_sum(mm));
	if (!complete || (keep && keep->nr))
		return REAP_PARTIAL;

	/* Nothing left for the OOM reaper, nor for the OOM killer to wait on. */
	mm_flags_set(MMF_OOM_SKIP, mm);
	return REAP_DONE;
}

/*
 * Does a process other than the victim use @mm?  Then it is not ours to
 * reap: the other process may live on (CLONE_VM partner, vfork parent or
 * child), and even a dying one walks robust futex lists we do not see.
 * Like task_will_free_mem(), this scans every process, once per reap.
 */
static bool reap_mm_shared(struct task_struct *victim, struct mm_struct *mm)
{
	struct task_struct *p;
	bool shared = false;

	rcu_read_lock();
	for_each_process(p) {
		if (!same_thread_group(p, victim) && process_shares_mm(p, mm)) {
			shared = true;
			break;
		}
	}
	rcu_read_unlock();
	return shared;
}

/*
 * While the victim's threads still hold the mm, we hold mm_users too: that
 * keeps exit_mmap() away while we look at the robust lists, and makes the
 * page tables safe for kthread_use_mm().  The teardown that the last
 * mmput() starts (exit_aio() may wait) goes to a system workqueue.
 */
static enum reap_result reap_live_mm(struct task_struct *victim,
				     struct mm_struct *mm,
				     struct reap_keep *keep,
				     unsigned long *freed)
{
	enum reap_result result;

	/*
	 * No shortcut on mm_users here: the victim's threads may have dropped
	 * theirs already while a vfork child lives on in the same mm.
	 */
	if (reap_mm_shared(victim, mm)) {
		result = REAP_SHARED;
		goto out;
	}
	if (!reap_mmap_read_trylock(mm)) {
		result = REAP_CONTENDED;
		goto out;
	}
	result = reap_mm_locked(victim, mm, keep, freed);
	mmap_read_unlock(mm);
out:
	mmput_async(mm);
	return result;
}

/*
 * mm_users is zero: the victim is in exit_mmap(), maybe crawling through it
 * at 1% of a CPU.  Unmap alongside it, as the OOM reaper does: exit_mmap()
 * unmaps under mmap_lock for reading too, and sets MMF_OOM_SKIP before it
 * takes the lock for writing to free the page tables.
 */
static enum reap_result reap_exiting_mm(struct task_struct *victim,
					struct mm_struct *mm,
					unsigned long *freed)
{
	enum reap_result result;

	if (!reap_mmap_read_trylock(mm))
		return REAP_CONTENDED;
	result = reap_mm_locked(victim, mm, NULL, freed);
	mmap_read_unlock(mm);
	return result;
}

/*
 * A core dump never runs into a reap: the kill path does not queue one for
 * a dumping process, and once the group is dying no dump can start.
 */
static enum reap_result reap_mm(struct task_struct *victim,
				struct mm_struct *mm, struct reap_keep *keep,
				unsigned long *freed)
{
	if (mmget_not_zero(mm))
		return reap_live_mm(victim, mm, keep, freed);
	return reap_exiting_mm(victim, mm, freed);
}

/*
 * memory.events:kill_reap counts the reaps that unmapped memory, which is
 * what an admin watching it wants to know, not every reap that ran: one
 * that found only hugetlb, PFN or shared mappings, or an address space
 * exit_mmap() had already emptied, freed nothing and is not counted.
 *
 * It is counted in the memory cgroup the victim is in when the reap is
 * done and, as every memory.events entry, in its ancestors.  A victim
 * moved between the kill and the reap is counted in its new cgroup,
 * although its pages stay charged to the old one.  The cgroup of the kill
 * is known by ID only (pinning it from the kill path would keep a removed
 * cgroup until the worker ran); the tracepoints report that ID.
 */
static void reap_count_event(struct task_struct *victim)
{
	struct mem_cgroup *memcg;

	rcu_read_lock();
	memcg = mem_cgroup_from_task(victim);
	if (memcg)
		memcg_memory_event(memcg, MEMCG_KILL_REAP);
	rcu_read_unlock();
}

/*
 * The kill path and the worker read local_clock(): the kill path runs under
 * siglock with interrupts off, maybe in hard-IRQ context, where
 * local_clock() costs a per-CPU sched_clock() read while ktime_get_ns()
 * reads the clocksource (HPET: microseconds) in the timekeeping seqcount
 * loop; and it is the trace buffer's default clock.  Read on two CPUs (an
 * unbound worker may also move between its start and its end), it can go
 * backwards by the little the CPUs' clocks differ: report 0 then, not a
 * huge u64.
 */
static u64 reap_ns_between(u64 from, u64 to)
{
	return to > from ? to - from : 0;
}

static void reap_on_kill_work(struct work_struct *work)
{
	struct reap_on_kill *rok = container_of(work, struct reap_on_kill, work);
	struct task_struct *victim = rok->task;
	struct reap_keep keep = { };
	unsigned long rss = 0, freed = 0;
	enum reap_result result;
	struct mm_struct *mm;
	u64 start;

	start = local_clock();
	mm = reap_take_mm(rok);
	if (mm)
		rss = get_mm_rss_sum(mm);
	trace_reap_on_kill_start(victim, rok->memcg_id, rss,
				 reap_ns_between(rok->queued_ns, start));

	if (mm)
		result = reap_mm(victim, mm, &keep, &freed);
	else
		result = REAP_EXITED;
	/* Only a reap that unmapped (REAP_DONE, REAP_PARTIAL) sets freed. */
	if (freed)
		reap_count_event(victim);

	trace_reap_on_kill_finish(victim, rok->memcg_id, freed, keep.nr,
				  reap_ns_between(start, local_clock()), result);
	/* rok lives in victim->signal: drop the mm before the victim. */
	if (mm)
		mmdrop(mm);
	put_task_struct(victim);
}

/*
 * memcg->reap_on_kill is what was written; memcg->reap_on_kill_effective is
 * whether it or any ancestor has it, which is what a kill tests.  Writers
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

void reap_on_kill_css_free(struct mem_cgroup *memcg)
{
	if (memcg->reap_on_kill)
		static_branch_dec(&reap_on_kill_key);
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

	if (!reap_on_kill_wq)
		return -ENOMEM;

	mutex_lock(&reap_on_kill_mutex);
	if (enable != memcg->reap_on_kill) {
		/* Enable the hook before any task can be covered ... */
		if (enable)
			static_branch_inc(&reap_on_kill_key);
		WRITE_ONCE(memcg->reap_on_kill, enable);
		reap_on_kill_propagate(memcg);
		/* ... and disable it only after none is. */
		if (!enable)
			static_branch_dec(&reap_on_kill_key);
	}
	mutex_unlock(&reap_on_kill_mutex);
	return nbytes;
}

static int __init reap_on_kill_init(void)
{
	/*
	 * Unbound and high priority: not limited by the victim's cpu.max,
	 * cpuset or nice level, and one worker per victim so that many
	 * victims are reaped in parallel.  WQ_MEM_RECLAIM provides a rescuer,
	 * as memory is short when we are needed most.
	 */
	reap_on_kill_wq = alloc_workqueue("reap_on_kill",
					  WQ_UNBOUND | WQ_HIGHPRI |
					  WQ_MEM_RECLAIM, 0);
	return reap_on_kill_wq ? 0 : -ENOMEM;
}
subsys_initcall(reap_on_kill_init);
