/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memory.reap_on_kill: reap a killed process without waiting for it.
 * See Documentation/admin-guide/cgroup-v2.rst and mm/reap_on_kill.c.
 */
#ifndef _LINUX_REAP_ON_KILL_H
#define _LINUX_REAP_ON_KILL_H

#include <linux/jump_label_ratelimit.h>
#include <linux/memcontrol.h>
#include <linux/sched/signal.h>

struct kernfs_open_file;
struct mm_struct;
struct reap_on_kill;
struct mem_cgroup;
struct seq_file;

#ifdef CONFIG_MEMCG_REAP_ON_KILL

/**
 * enum reap_on_kill_result - how a reap ended, in reap_on_kill_finish
 * @REAP_ON_KILL_DONE: all private memory unmapped ("reaped")
 * @REAP_ON_KILL_PARTIAL: VMAs kept for robust futexes, or an MMU notifier
 *	would have blocked ("partial")
 * @REAP_ON_KILL_EXITED: the victim's mm was gone ("exited")
 * @REAP_ON_KILL_SHARED: another process uses the mm ("shared")
 * @REAP_ON_KILL_DONE_ELSEWHERE: the OOM reaper or exit_mmap() got there
 *	first ("done_elsewhere")
 * @REAP_ON_KILL_CONTENDED: mmap_lock stayed write-locked
 *	("mmap_lock_contended")
 * @REAP_ON_KILL_ROBUST_UNKNOWN: unreadable robust lists kept the whole mm
 *	("robust_list_unreadable")
 * @REAP_ON_KILL_ROBUST_NOT_RESIDENT: a robust list stayed out of memory
 *	("robust_list_not_resident")
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

void __reap_on_kill_queue(struct task_struct *p, u64 memcg_id);
void __reap_on_kill_exit_mm(struct reap_on_kill *rok, struct mm_struct *mm);
void __reap_on_kill_free(struct reap_on_kill *rok);

/**
 * reap_on_kill_live_thread - the thread whose memcg and mm decide a kill
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * A zombie leader stays in its old cgroup while its threads move on
 * (cgroup_migrate_add_task() skips exiting tasks); complete_signal() made
 * a live thread signal->curr_target.
 */
static inline struct task_struct *reap_on_kill_live_thread(struct task_struct *p)
{
	return p->flags & PF_EXITING ? p->signal->curr_target : p;
}

/**
 * reap_on_kill_covered - which memory cgroup asks for a reap of @p's process?
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * Interrupts off under siglock (rcu_read_lock() in PREEMPT_RT's spinlocks)
 * is an RCU read side: the memcg stays alive while it is read.  Siglock
 * does not hold the process in its cgroup (migration does not take it), so
 * the caller keeps the ID that decided rather than looking again.  Inline:
 * every fatal signal pays it while any cgroup uses the file.
 *
 * Return: the cgroup ID of the memory cgroup of @p's process if
 * memory.reap_on_kill is in effect there, else 0.
 */
static inline u64 reap_on_kill_covered(struct task_struct *p)
{
	struct task_struct *t = reap_on_kill_live_thread(p);
	struct cgroup_subsys_state *css = task_css(t, memory_cgrp_id);

	if (css && READ_ONCE(mem_cgroup_from_css(css)->reap_on_kill_effective))
		return cgroup_id(css->cgroup);
	return 0;
}

/**
 * reap_on_kill_queue - queue a reap if @p's memory cgroup asks for one
 * @p: the task a fatal signal was sent to; its siglock is held
 *
 * Called from complete_signal() as it starts the group exit, once per
 * process.  A patched-out branch while no memory cgroup uses the file.
 */
static inline void reap_on_kill_queue(struct task_struct *p)
{
	u64 memcg_id;

	if (!static_branch_unlikely(&reap_on_kill_key.key))
		return;
	memcg_id = reap_on_kill_covered(p);
	if (memcg_id)
		__reap_on_kill_queue(p, memcg_id);
}

/**
 * reap_on_kill_exit_mm - hand the address space to a pending reap
 * @mm: current's address space, which exit_mm() is about to drop
 *
 * The last moment the mm is reachable from the victim's tasks; a /proc
 * reader or AIO may keep it alive after that.
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

static inline void reap_on_kill_css_offline(struct mem_cgroup *memcg)
{
}

#endif /* CONFIG_MEMCG_REAP_ON_KILL */
#endif /* _LINUX_REAP_ON_KILL_H */
