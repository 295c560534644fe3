/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_REAP_ON_KILL_TYPES_H
#define _LINUX_REAP_ON_KILL_TYPES_H

#include <linux/types.h>
#include <linux/workqueue.h>

struct mm_struct;
struct task_struct;

/* Bits in reap_on_kill::flags */
#define REAP_ON_KILL_QUEUED	0	/* the reap was queued; never cleared */
#define REAP_ON_KILL_FENCED	1	/* no victim thread runs user code */
#define REAP_ON_KILL_COVERED	2	/* the memcg is covered; may change */

/**
 * struct reap_on_kill - a process's expedited reap, pending once it is killed
 * @flags: REAP_ON_KILL_* bits, changed atomically: QUEUED and FENCED are
 *	set once, COVERED follows the process's memcg and its setting (see
 *	reap_on_kill_update_process() in mm/reap_on_kill.c)
 * @dwork: runs the reap on reap_on_kill_wq, at once, and again after a
 *	delay while the victim holds mmap_lock for writing or has a robust
 *	futex list out of memory
 * @mm: the address space to reap, pinned with mmgrab(), or NULL if no
 *	task had it at hand yet; set once, by cmpxchg(), and closed by the
 *	worker when the reap is over (see __reap_on_kill_pin_mm())
 * @task: the thread the fatal signal was sent to, referenced until the
 *	reap is done
 * @memcg_id: cgroup ID of the victim's memory cgroup at kill time
 * @queued_ns: local_clock(), on the CPU of the kill, when the reap was
 *	queued
 * @started_ns: local_clock() when the worker first ran
 * @attempts: how many times the worker ran, only touched by the worker
 * @robust_reads: words of robust futex lists the worker read so far, and
 *	threads it looked at, over all attempts, only touched by the worker
 *
 * Lives in signal_struct, so queueing a reap from the signal path never
 * allocates memory: a process is killed at most once, so one is enough.
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
	unsigned long flags;
};

#endif /* _LINUX_REAP_ON_KILL_TYPES_H */
