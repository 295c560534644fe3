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
 * memcg_id: the cgroup ID (inode number) of the victim's memory cgroup at
 * the kill.  anon_swap, freed: pages (printed in kB).  retries: attempts
 * after the first.  robust_reads: robust list words read plus threads
 * looked at, over all attempts.  The time a step took is the difference
 * of the events' timestamps.
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

/* The worker starts (its first attempt), then starts to unmap. */
DECLARE_EVENT_CLASS(reap_on_kill_step,
		    TP_PROTO(struct task_struct *task, u64 memcg_id,
			     unsigned long anon_swap),
		    TP_ARGS(task, memcg_id, anon_swap),
		    TP_STRUCT__entry(__field(pid_t, pid)
				     __field(u64, memcg_id)
				     __field(unsigned long, anon_swap)),
		    TP_fast_assign(__entry->pid = task->tgid;
				   __entry->memcg_id = memcg_id;
				   __entry->anon_swap = anon_swap;),
		    TP_printk("pid=%d memcg_id=%llu anon_swap=%lukB",
			      __entry->pid, __entry->memcg_id,
			      __entry->anon_swap << (PAGE_SHIFT - 10))
);

DEFINE_EVENT(reap_on_kill_step, reap_on_kill_start,
	     TP_PROTO(struct task_struct *task, u64 memcg_id,
		      unsigned long anon_swap),
	     TP_ARGS(task, memcg_id, anon_swap));

DEFINE_EVENT(reap_on_kill_step, reap_on_kill_unmap,
	     TP_PROTO(struct task_struct *task, u64 memcg_id,
		      unsigned long anon_swap),
	     TP_ARGS(task, memcg_id, anon_swap));

TRACE_EVENT(reap_on_kill_finish,
	    TP_PROTO(struct task_struct *task, u64 memcg_id,
		     unsigned long freed, unsigned long kept_vmas, int result,
		     unsigned int retries, unsigned int robust_reads),
	    TP_ARGS(task, memcg_id, freed, kept_vmas, result, retries,
		    robust_reads),
	    TP_STRUCT__entry(__field(pid_t, pid)
			     __field(u64, memcg_id)
			     __field(unsigned long, freed)
			     __field(unsigned long, kept_vmas)
			     __field(int, result)
			     __field(unsigned int, retries)
			     __field(unsigned int, robust_reads)),
	    TP_fast_assign(__entry->pid = task->tgid;
			   __entry->memcg_id = memcg_id;
			   __entry->freed = freed;
			   __entry->kept_vmas = kept_vmas;
			   __entry->result = result;
			   __entry->retries = retries;
			   __entry->robust_reads = robust_reads;),
	    TP_printk("pid=%d memcg_id=%llu freed=%lukB kept_vmas=%lu result=%s retries=%u robust_reads=%u",
		      __entry->pid, __entry->memcg_id,
		      __entry->freed << (PAGE_SHIFT - 10), __entry->kept_vmas,
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
