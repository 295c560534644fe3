// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by the memory.reap_on_kill selftests and reap_bench; see
 * reap_util.h.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../kselftest.h"
#include "cgroup_util.h"
#include "reap_util.h"

/**
 * sleep_us() - sleep for @us microseconds
 * @us: how long
 */
void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/**
 * fill_pattern() - write the memory pattern into @buf
 * @buf: the memory, 8-byte aligned
 * @size: its size in bytes; a partial last word is left alone
 *
 * Each word gets pattern_at() of its own address.
 */
void fill_pattern(uint64_t *buf, size_t size)
{
	size_t i;

	for (i = 0; i < size / sizeof(*buf); i++)
		buf[i] = pattern_at(&buf[i]);
}

/**
 * pattern_bad_word() - find a word that does not hold the pattern
 * @buf: the words to check, e.g. a copy read from another process
 * @addr: the address @buf was written at by fill_pattern(), in the
 *	  process that wrote it (@buf itself if it is that memory)
 * @size: bytes to check
 *
 * Return: the index of the first word of @buf that is not pattern_at() of
 * its address from @addr on, or -1 if they all are.
 */
long pattern_bad_word(const uint64_t *buf, const void *addr, size_t size)
{
	const uint64_t *at = addr;
	size_t i;

	for (i = 0; i < size / sizeof(*buf); i++)
		if (buf[i] != pattern_at(&at[i]))
			return i;
	return -1;
}

/* Make @m a robust mutex, shared between processes if @pshared, and lock it. */
static int robust_init_lock(pthread_mutex_t *m, bool pshared)
{
	pthread_mutexattr_t attr;
	int err;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	if (pshared)
		pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	err = pthread_mutex_init(m, &attr);
	pthread_mutexattr_destroy(&attr);
	return err ? err : pthread_mutex_lock(m);
}

/**
 * lock_robust_pair() - hold a shared robust mutex behind a private one
 * @shared: room for a mutex in MAP_SHARED memory, initialized here
 *
 * Initializes and locks @shared as a process-shared robust mutex, then a
 * private robust mutex on the heap (never freed).  Locked second, the
 * private mutex heads the calling thread's robust list: the exit path
 * must walk through private memory to reach @shared, and a reap that
 * freed that memory first would leave @shared's waiters hanging.
 *
 * Return: 0, or an errno.
 */
int lock_robust_pair(pthread_mutex_t *shared)
{
	pthread_mutex_t *priv = malloc(sizeof(*priv));
	int err;

	if (!priv)
		return errno;
	err = robust_init_lock(shared, true);
	return err ? err : robust_init_lock(priv, false);
}

/**
 * robust_timedlock() - wait for a robust mutex whose owner is to die
 * @m: the mutex, locked by another process
 * @seconds: how long to wait at most
 *
 * Return: what pthread_mutex_timedlock() returns: EOWNERDEAD if the owner
 * died holding @m and its exit path marked it so, ETIMEDOUT, 0 if the
 * owner unlocked it, or another errno.
 */
int robust_timedlock(pthread_mutex_t *m, int seconds)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += seconds;
	return pthread_mutex_timedlock(m, &deadline);
}

/**
 * tracefs_usable() - whether tracefs instances can be created
 *
 * Return: true if TRACEFS/instances is there and writable.
 */
bool tracefs_usable(void)
{
	return access(TRACEFS "/instances", W_OK) == 0;
}

/**
 * tracefs_write() - write a file of a tracefs instance
 * @instance: the instance's directory, e.g. TRACEFS "/instances/NAME"
 * @file: the file, relative to it, e.g. "events/oom/mark_victim/enable"
 * @val: what to write
 *
 * Return: 0, or -1 (printed).
 */
int tracefs_write(const char *instance, const char *file, const char *val)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", instance, file);
	if (write_text(path, (char *)val, strlen(val)) >= 0)
		return 0;
	ksft_print_msg("cannot write '%s' to %s: %s\n", val, path,
		       strerror(errno));
	return -1;
}

/**
 * tracefs_clear() - empty the trace buffer of @instance
 * @instance: the instance's directory
 *
 * Opening the trace file for writing with O_TRUNC empties the buffer.
 *
 * Return: 0, or -1.
 */
int tracefs_clear(const char *instance)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", instance);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/**
 * tracefs_begin() - trace into @instance, emptied, from now on
 * @instance: the instance's directory, created if need be
 * @buffer_kb: the size of its per-CPU buffers
 * @events: NULL-terminated "system/event" names or whole "system"s to
 *	    enable, e.g. "reap_on_kill", "oom/mark_victim"; every other
 *	    event is disabled
 *
 * The instance's trace_clock is "mono", ktime_get_mono_fast_ns(): event
 * timestamps compare with now_ns().  Other tracing users neither see nor
 * disturb the instance's events.
 *
 * Return: 0, or -1 (printed) if an event or the instance is missing.
 */
int tracefs_begin(const char *instance, int buffer_kb,
		  const char * const *events)
{
	char file[PATH_MAX], kb[16];

	if (mkdir(instance, 0755) && errno != EEXIST) {
		ksft_print_msg("mkdir %s: %s\n", instance, strerror(errno));
		return -1;
	}
	snprintf(kb, sizeof(kb), "%d", buffer_kb);
	if (tracefs_write(instance, "tracing_on", "0") ||
	    tracefs_write(instance, "events/enable", "0") ||
	    tracefs_write(instance, "trace_clock", "mono") ||
	    tracefs_write(instance, "buffer_size_kb", kb))
		return -1;
	for (; *events; events++) {
		snprintf(file, sizeof(file), "events/%s/enable", *events);
		if (tracefs_write(instance, file, "1"))
			return -1;
	}
	if (tracefs_clear(instance))
		return -1;
	return tracefs_write(instance, "tracing_on", "1");
}

/**
 * tracefs_end() - disable every event of @instance and remove it
 * @instance: the instance's directory; nothing is done if it is missing
 */
void tracefs_end(const char *instance)
{
	if (access(instance, F_OK))
		return;
	tracefs_write(instance, "events/enable", "0");
	rmdir(instance);
}

/**
 * tracefs_line_ns() - when a line of an instance's trace was recorded
 * @line: the line
 * @end: where ": event_name: " starts in it, after the timestamp
 *
 * Return: the "secs.frac" before @end, in ns of the instance's clock, or
 * -1 if that word is not digits, a dot and digits.
 */
long long tracefs_line_ns(const char *line, const char *end)
{
	const char *p = end;
	long long ns = 0, scale = 1000000000LL;

	while (p > line && p[-1] != ' ')
		p--;
	if (p == end || !isdigit((unsigned char)*p))
		return -1;
	for (; p < end && isdigit((unsigned char)*p); p++)
		ns = ns * 10 + (*p - '0');
	if (p >= end - 1 || *p != '.')
		return -1;
	ns *= 1000000000LL;
	for (p++; p < end; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		if (scale > 1) {
			scale /= 10;
			ns += (*p - '0') * scale;
		}
	}
	return ns;
}

/*
 * Fork a child that runs @fn in @cgroup: it moves itself there first, or,
 * with @clone_into, clone3(CLONE_INTO_CGROUP) starts it there.
 */
static pid_t spawn(const char *cgroup, bool clone_into,
		   void (*fn)(int fd, void *arg), void *arg, void *msg,
		   size_t size)
{
	int p[2], cg_fd = -1;
	pid_t pid;

	if (clone_into) {
		cg_fd = dirfd_open_opath(cgroup);
		if (cg_fd < 0)
			return -1;
	}
	if (pipe(p)) {
		if (cg_fd >= 0)
			close(cg_fd);
		return -1;
	}
	pid = clone_into ? clone_into_cgroup(cg_fd) : fork();
	if (cg_fd >= 0 && pid != 0)
		close(cg_fd);
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		if (!clone_into && cg_enter_current(cgroup))
			_exit(1);
		fn(p[1], arg);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], msg, size) != (ssize_t)size) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(p[0]);
	return pid;
}

/**
 * spawn_in_cgroup() - fork a child into a cgroup and wait until it is ready
 * @cgroup: the cgroup the child moves itself to first (exit status 1 if
 *	    it cannot)
 * @fn: what the child runs then, with the write end of a pipe and @arg;
 *	the child exits with status 0 if @fn returns
 * @arg: for @fn
 * @msg: where the parent puts the first @size bytes @fn writes to the
 *	 pipe, e.g. with spawn_ready(): "ready", an address, pids
 * @size: how many; at most PIPE_BUF, so that they come in one piece
 *
 * Return: the child's pid once @fn wrote @size bytes, or -1 if it could
 * not be forked, or ended (and was waited for) before it wrote them.
 */
pid_t spawn_in_cgroup(const char *cgroup, void (*fn)(int fd, void *arg),
		      void *arg, void *msg, size_t size)
{
	return spawn(cgroup, false, fn, arg, msg, size);
}

/**
 * spawn_cloned_into_cgroup() - spawn_in_cgroup(), born in the cgroup
 * @cgroup: where clone3(CLONE_INTO_CGROUP) starts the child, which never
 *	    runs anywhere else
 * @fn: as for spawn_in_cgroup()
 * @arg: for @fn
 * @msg: as for spawn_in_cgroup()
 * @size: as for spawn_in_cgroup()
 *
 * Return: as spawn_in_cgroup().
 */
pid_t spawn_cloned_into_cgroup(const char *cgroup,
			       void (*fn)(int fd, void *arg), void *arg,
			       void *msg, size_t size)
{
	return spawn(cgroup, true, fn, arg, msg, size);
}

/**
 * spawn_ready() - in a child of spawn_in_cgroup(): report that it is ready
 * @fd: the pipe @fn got, closed here
 * @msg: what the parent waits for, e.g. "r", or an address it needs
 * @size: the size the parent passed to spawn_in_cgroup()
 *
 * The child exits with status 3 if the parent is not reading.
 */
void spawn_ready(int fd, const void *msg, size_t size)
{
	if (write(fd, msg, size) != (ssize_t)size)
		_exit(3);
	close(fd);
}

/**
 * waitpid_until() - wait for a child, with a deadline
 * @pid: the child, a process or a clone (__WALL)
 * @status: its wait status
 * @deadline: now_ns() after which to give up
 *
 * Return: 0 once the child was waited for, -1 if the deadline passed or
 * waitpid() failed; the child is left as it is then.
 */
int waitpid_until(pid_t pid, int *status, long long deadline)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG | __WALL);

		if (r == pid)
			return 0;
		if (r < 0 || now_ns() > deadline)
			return -1;
		sleep_us(1000);
	}
}
