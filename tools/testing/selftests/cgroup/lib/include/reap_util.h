/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the memory.reap_on_kill selftests (test_reap_on_kill,
 * test_reap_on_kill_stress) and reap_bench: the clock, an address-derived
 * memory pattern, robust mutexes, tracefs instances, and children forked
 * into a cgroup that report when they are ready.
 */
#ifndef __REAP_UTIL_H
#define __REAP_UTIL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define TRACEFS		"/sys/kernel/tracing"

/* How many workers may unmap one killed process (mm/reap_on_kill.c). */
#define REAP_WORKERS_PARAM	"/sys/module/oom_kill/parameters/reap_workers"

/**
 * now_ns() - the time on CLOCK_MONOTONIC, in nanoseconds
 *
 * The clock of the tracefs instances too (trace_clock "mono"), so that
 * event timestamps compare with it.  Inline: benchmarks time single
 * syscalls between two calls.
 *
 * Return: nanoseconds since boot, not counting suspend.
 */
static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void sleep_us(long us);

/**
 * sleep_ms() - sleep for @ms milliseconds
 * @ms: how long
 */
static inline void sleep_ms(long ms)
{
	sleep_us(ms * 1000);
}

/**
 * pattern_at() - the word the memory pattern has at @addr
 * @addr: the address of the word, in the process that wrote it
 *
 * Every word holds a value derived from its own address, so that a page
 * read back from elsewhere (another process, a core file, the disk)
 * shows whether it is the page written there: a zero page, or data of
 * another address, does not match.
 *
 * Return: the pattern's value for @addr.
 */
static inline uint64_t pattern_at(const void *addr)
{
	return (uintptr_t)addr * 0x9e3779b97f4a7c15ULL;
}

void fill_pattern(uint64_t *buf, size_t size);
long pattern_bad_word(const uint64_t *buf, const void *addr, size_t size);

/**
 * pattern_intact() - whether @buf holds the pattern at its own address
 * @buf: memory written by fill_pattern()
 * @size: bytes to check
 *
 * Return: true if every word of @buf holds pattern_at() of its address.
 */
static inline bool pattern_intact(const uint64_t *buf, size_t size)
{
	return pattern_bad_word(buf, buf, size) < 0;
}

int lock_robust_pair(pthread_mutex_t *shared);
int robust_timedlock(pthread_mutex_t *m, int seconds);

bool tracefs_usable(void);
int tracefs_write(const char *instance, const char *file, const char *val);
int tracefs_clear(const char *instance);
int tracefs_begin(const char *instance, int buffer_kb,
		  const char * const *events);
void tracefs_end(const char *instance);
long long tracefs_line_ns(const char *line, const char *end);

pid_t spawn_in_cgroup(const char *cgroup, void (*fn)(int fd, void *arg),
		      void *arg, void *msg, size_t size);
pid_t spawn_cloned_into_cgroup(const char *cgroup,
			       void (*fn)(int fd, void *arg), void *arg,
			       void *msg, size_t size);
void spawn_ready(int fd, const void *msg, size_t size);
int waitpid_until(pid_t pid, int *status, long long deadline);

#endif /* __REAP_UTIL_H */
