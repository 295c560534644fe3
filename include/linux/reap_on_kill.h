/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memory.reap_on_kill: strip a killed process's memory from a workqueue,
 * without waiting for the victim to run its exit path.
 * See Documentation/admin-guide/cgroup-v2.rst and mm/reap_on_kill.c.
 */
#ifndef _LINUX_REAP_ON_KILL_H
#define _LINUX_REAP_ON_KILL_H

#include <linux/jump_label_ratelimit.h>
#include <linux/memcontrol.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>

struct kernfs_open_file;
struct mm_struct;
struct reap_on_kill;
struct mem_cgroup;
struct seq_file;

#ifdef CONFIG_MEMCG_REAP_ON_KILL

/**
 * enum reap_on_kill_result - how a reap ended
 * @REAP_ON_KILL_DONE: all private memory unmapped ("reaped" in the trace)
 * @REAP_ON_KILL_PARTIAL: unmapped, but VMAs kept for robust futexes, or
 *	an MMU notifier would have blocked ("partial")
 * @REAP_ON_KILL_EXITED: the victim freed its memory before the worker
 *	came ("exited")
 * @REAP_ON_KILL_SHARED: another process uses the address space
 *	("shared")
 * @REAP_ON_KILL_DONE_ELSEWHERE: the OOM reaper or exit_mmap() got there
 *	first ("done_elsewhere")
 * @REAP_ON_KILL_CONTENDED: mmap_lock stayed write-locked while the worker
 *	tried again for REAP_RETRY_TIMEOUT_MS ("mmap_lock_contended")
 * @REAP_ON_KILL_ROBUST_UNKNOWN: robust futex lists that could not be
 *	followed kept the whole address space ("robust_list_unreadable")
 * @REAP_ON_KILL_ROBUST_NOT_RESIDENT: a robust futex list stayed in pages
 *	that are not resident, and its thread did not run its exit path,
 *	while the worker tried again ("robust_list_not_resident")
 *
 * Reported by the reap_on_kill_finish tracepoint.
 */
enum reap_on_kill_result {
	REAP_ON_KILL_DONE,
	REAP_ON_KILL_PARTIAL,
	REAP_ON_KILL_EXITED,
	REAP_ON_KILL_SHARED,
	REAP_ON_KILL_DONE_ELSEWHERE,
	REAP_ON_KILL_CONTENDED,
	REAP_ON_KILL_ROBUST_UNKNOWN,
	REAP_ON_KILL_ROBUST_NOT_RESIDENT,
};

extern struct static_key_false_deferred reap_on_kill_key;

void __reap_on_kill_queue(struct task_struct *p);
void __reap_on_kill_exit_mm(struct reap_on_kill *rok, struct mm_struct *mm);
void __reap_on_kill_free(struct reap_on_kill *rok);

/**
 * reap_on_kill_live_thread - the thread whose memcg and mm decide a kill
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * For kill() of a process, @p is its leader, which may have exited and
 * stayed behind in its old cgroup while its threads moved on
 * (cgroup_migrate_add_task() skips exiting tasks); then complete_signal()
 * made a live thread signal->curr_target.  A live thread has the
 * process's memcg and mm.
 */
static inline struct task_struct *reap_on_kill_live_thread(struct task_struct *p)
{
	return p->flags & PF_EXITING ? p->signal->curr_target : p;
}

/**
 * reap_on_kill_covered - does the memory cgroup of @p's process ask for a reap?
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * siglock, with interrupts off (or rcu_read_lock() in PREEMPT_RT's
 * spinlocks), keeps the memcg from being freed under us.  Inline: this is
 * what every fatal signal pays while any cgroup uses the file.
 */
static inline bool reap_on_kill_covered(struct task_struct *p)
{
	struct task_struct *t = reap_on_kill_live_thread(p);
	struct cgroup_subsys_state *css;

	css = task_css_check(t, memory_cgrp_id,
			     lockdep_is_held(&p->sighand->siglock));
	return css && READ_ONCE(mem_cgroup_from_css(css)->reap_on_kill_effective);
}

/**
 * reap_on_kill_queue - queue a reap if @p's memory cgroup asks for one
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * Called from complete_signal() as it starts the group exit, which happens
 * once per process.  While no memory cgroup has memory.reap_on_kill set,
 * this is a patched-out branch.
 */
static inline void reap_on_kill_queue(struct task_struct *p)
{
	if (static_branch_unlikely(&reap_on_kill_key.key) &&
	    reap_on_kill_covered(p))
		__reap_on_kill_queue(p);
}

/**
 * reap_on_kill_exit_mm - hand the address space to a pending reap
 * @mm: current's address space, which exit_mm() is about to drop
 *
 * The last moment a killed process's mm is reachable from its tasks: after
 * this, only other references (a /proc reader, AIO, process_vm_readv())
 * may keep it alive, unreaped, for as long as they like.
 */
static inline void reap_on_kill_exit_mm(struct mm_struct *mm)
{
	struct reap_on_kill *rok = READ_ONCE(current->signal->reap_on_kill);

	if (unlikely(rok))
		__reap_on_kill_exit_mm(rok, mm);
}

/**
 * reap_on_kill_free - free what a reap left in a signal_struct
 * @sig: the signal_struct, being freed
 */
static inline void reap_on_kill_free(struct signal_struct *sig)
{
	if (unlikely(sig->reap_on_kill))
		__reap_on_kill_free(sig->reap_on_kill);
}

/**
 * reap_on_kill_robust_list_begin - set_robust_list() against a reap's walk
 *
 * A reap reads the robust futex lists of the victim's threads once, to
 * keep what their exit paths will read (reap_keep_robust_lists()).  A
 * thread still inside set_robust_list() when its process is killed could
 * otherwise register a list after that read, which its exit path would
 * then walk in reaped memory.  Under task_lock(), which the reap takes to
 * read each thread's list, either the reap reads the new list or the
 * thread finds that a reap was queued (it reads the lists only after the
 * kill queued it) and fails the call with -EINTR: as if the fatal signal
 * had come before the call.  The thread never returns to user space to
 * see it; a tracer's get_robust_list() and audit see the old list and the
 * failure.
 *
 * Return: whether current may store its new list; call
 * reap_on_kill_robust_list_end() either way.
 */
static inline bool reap_on_kill_robust_list_begin(void)
{
	task_lock(current);
	return !READ_ONCE(current->signal->reap_on_kill);
}

static inline void reap_on_kill_robust_list_end(void)
{
	task_unlock(current);
}

void reap_on_kill_css_online(struct mem_cgroup *memcg);
void reap_on_kill_css_offline(struct mem_cgroup *memcg);
int memory_reap_on_kill_show(struct seq_file *m, void *v);
ssize_t memory_reap_on_kill_write(struct kernfs_open_file *of, char *buf,
				  size_t nbytes, loff_t off);

#else /* !CONFIG_MEMCG_REAP_ON_KILL */

static inline void reap_on_kill_queue(struct task_struct *p)
{
}

static inline void reap_on_kill_exit_mm(struct mm_struct *mm)
{
}

static inline void reap_on_kill_free(struct signal_struct *sig)
{
}

static inline void reap_on_kill_css_online(struct mem_cgroup *memcg)
{
}

static inline bool reap_on_kill_robust_list_begin(void)
{
	return true;
}

static inline void reap_on_kill_robust_list_end(void)
{
}

static inline void reap_on_kill_css_offline(struct mem_cgroup *memcg)
{
}

#endif /* CONFIG_MEMCG_REAP_ON_KILL */
#endif /* _LINUX_REAP_ON_KILL_H */
