/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM reap_on_kill

#if !defined(_TRACE_REAP_ON_KILL_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_REAP_ON_KILL_H

#include <linux/reap_on_kill.h>
#include <linux/tracepoint.h>

/* enum reap_on_kill_result's values, for user space to decode result by name */
TRACE_DEFINE_ENUM(REAP_ON_KILL_DONE);
TRACE_DEFINE_ENUM(REAP_ON_KILL_PARTIAL);
TRACE_DEFINE_ENUM(REAP_ON_KILL_EXITED);
TRACE_DEFINE_ENUM(REAP_ON_KILL_SHARED);
TRACE_DEFINE_ENUM(REAP_ON_KILL_DONE_ELSEWHERE);
TRACE_DEFINE_ENUM(REAP_ON_KILL_CONTENDED);
TRACE_DEFINE_ENUM(REAP_ON_KILL_ROBUST_UNKNOWN);
TRACE_DEFINE_ENUM(REAP_ON_KILL_ROBUST_NOT_RESIDENT);

/*
 * memcg_id is the cgroup ID of the victim's memory cgroup at the kill,
 * which is the inode number of its cgroupfs directory.  delay_ns (queued
 * to started) and duration_ns (started to finished) are local_clock()
 * differences, 0 if the clocks of two CPUs made one negative.  retries is
 * how often the worker came back later (mmap_lock write-locked, a robust
 * list not resident), and duration_ns includes those waits.  anon_swap is
 * the victim's anonymous memory and swap when the worker first ran, which
 * is what a reap can give back; freed is how much of it the reap gave
 * back, and kept_vmas how many VMAs it left for robust futexes: both 0
 * unless result is reaped or partial.  robust_reads is the work the walks
 * of robust futex lists did over all attempts, in words read plus threads
 * looked at; robust_list_unreadable with robust_reads at the budget
 * (262144) means the reap gave up on the lists' account.
 */
TRACE_EVENT(reap_on_kill_queue,
	    TP_PROTO(struct task_struct *task, u64 memcg_id, bool mm_pinned),
	    TP_ARGS(task, memcg_id, mm_pinned),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, memcg_id)
			     __field(bool, mm_pinned)),
	    TP_fast_assign(__entry->pid = task->tgid;
			   __entry->memcg_id = memcg_id;
			   __entry->mm_pinned = mm_pinned;),
	    TP_printk("pid=%d memcg_id=%llu mm_pinned=%d",
		      __entry->pid, __entry->memcg_id, __entry->mm_pinned)
);

TRACE_EVENT(reap_on_kill_start,
	    TP_PROTO(struct task_struct *task, u64 memcg_id,
		     unsigned long anon_swap, u64 delay_ns),
	    TP_ARGS(task, memcg_id, anon_swap, delay_ns),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, memcg_id)
			     __field(unsigned long, anon_swap)
			     __field(u64, delay_ns)),
	    TP_fast_assign(__entry->pid = task->tgid;
			   __entry->memcg_id = memcg_id;
			   __entry->anon_swap = anon_swap;
			   __entry->delay_ns = delay_ns;),
	    TP_printk("pid=%d memcg_id=%llu anon_swap=%lukB delay_ns=%llu",
		      __entry->pid, __entry->memcg_id,
		      __entry->anon_swap << (PAGE_SHIFT - 10),
		      __entry->delay_ns)
);

/*
 * The worker unmaps: it started delay_ns after the kill queued the reap
 * (the worker's wake-up, then the fence, the robust lists' walk, the check
 * for other users of the mm, and any waits for mmap_lock), with anon_swap,
 * the victim's anonymous memory and swap, to unmap.
 */
TRACE_EVENT(reap_on_kill_unmap,
	    TP_PROTO(struct task_struct *task, u64 memcg_id,
		     unsigned long anon_swap, u64 delay_ns),
	    TP_ARGS(task, memcg_id, anon_swap, delay_ns),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, memcg_id)
			     __field(unsigned long, anon_swap)
			     __field(u64, delay_ns)),
	    TP_fast_assign(__entry->pid = task->tgid;
			   __entry->memcg_id = memcg_id;
			   __entry->anon_swap = anon_swap;
			   __entry->delay_ns = delay_ns;),
	    TP_printk("pid=%d memcg_id=%llu anon_swap=%lukB delay_ns=%llu",
		      __entry->pid, __entry->memcg_id,
		      __entry->anon_swap << (PAGE_SHIFT - 10),
		      __entry->delay_ns)
);

TRACE_EVENT(reap_on_kill_finish,
	    TP_PROTO(struct task_struct *task, u64 memcg_id,
		     unsigned long freed, unsigned long kept_vmas,
		     u64 duration_ns, int result, unsigned int retries,
		     unsigned int robust_reads),
	    TP_ARGS(task, memcg_id, freed, kept_vmas, duration_ns, result,
		    retries, robust_reads),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, memcg_id)
			     __field(unsigned long, freed)
			     __field(unsigned long, kept_vmas)
			     __field(u64, duration_ns)
			     __field(int, result)
			     __field(unsigned int, retries)
			     __field(unsigned int, robust_reads)),
	    TP_fast_assign(__entry->pid = task->tgid;
			   __entry->memcg_id = memcg_id;
			   __entry->freed = freed;
			   __entry->kept_vmas = kept_vmas;
			   __entry->duration_ns = duration_ns;
			   __entry->result = result;
			   __entry->retries = retries;
			   __entry->robust_reads = robust_reads;),
	    TP_printk("pid=%d memcg_id=%llu freed=%lukB kept_vmas=%lu duration_ns=%llu result=%s retries=%u robust_reads=%u",
		      __entry->pid, __entry->memcg_id,
		      __entry->freed << (PAGE_SHIFT - 10), __entry->kept_vmas,
		      __entry->duration_ns,
		      __print_symbolic(__entry->result,
				       { REAP_ON_KILL_DONE, "reaped" },
				       { REAP_ON_KILL_PARTIAL, "partial" },
				       { REAP_ON_KILL_EXITED, "exited" },
				       { REAP_ON_KILL_SHARED, "shared" },
				       { REAP_ON_KILL_DONE_ELSEWHERE, "done_elsewhere" },
				       { REAP_ON_KILL_CONTENDED, "mmap_lock_contended" },
				       { REAP_ON_KILL_ROBUST_UNKNOWN, "robust_list_unreadable" },
				       { REAP_ON_KILL_ROBUST_NOT_RESIDENT,
					 "robust_list_not_resident" }),
		      __entry->retries, __entry->robust_reads)
);

#endif /* _TRACE_REAP_ON_KILL_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
