// SPDX-License-Identifier: GPL-2.0
/*
 * reap_bench: how fast does a killed process's memory come back?
 *
 * Kill-to-free time of victims' memory, side by side, for three methods:
 *
 *   plain         SIGKILL (cgroup.kill for several victims); the victims
 *                 free their memory on their way out
 *   mrelease      the same kill, then process_mrelease(2) on every victim
 *                 from this unthrottled task, right after the kill and
 *                 once, as Android's lmkd does
 *   reap_on_kill  the same kill with memory.reap_on_kill=1 on the victims'
 *                 cgroup
 *
 * under victim conditions: cpu.max set after the victim allocated (with
 * the default 100 ms period and a 1 s one), a CPU shared with busy work of
 * a higher cpu.weight, nice level or scheduling class, nice 19 under load,
 * direct I/O throttled by io.max (the victim is in D state at the kill),
 * and many victims killed at once by cgroup.kill.
 *
 * Timing: from just before the kill until the victims' cgroup has given
 * back 90% of the anonymous memory it held, by this task sampling
 * memory.current every 200us.  Each figure is the median of --reps runs,
 * with min and max.  A run in which a call the method depends on failed
 * (pidfd_open, the kill, ...) is an error, not a time: it is left out of
 * the figure and reported with its errno.  process_mrelease() failing
 * with ESRCH is not: the victim was already past exit_mm(), and its
 * memory comes back as its own exit frees it, which is what a killer
 * like lmkd then sees; the run keeps its time, and a note counts them.
 *
 * Also timed, by the same poller: when the first 1% came back.  That is
 * an upper bound: in a guest of 2 vCPUs the poller competes with the
 * reap's workers (nice -20), and for mrelease it is the reaper itself, so
 * it looks again only once the call returned.  --trace has the kernel's
 * own figure, to the first pages freed.  --workers runs the reap_on_kill column once per number of
 * workers that may unmap one victim (the oom_kill.reap_workers parameter),
 * --each gives every victim of a cgroup.kill the same size, and --trace
 * reads the reap's tracepoints to say where its time went, see
 * trace_breakdown().
 *
 * --overhead times the code the series adds to the fatal-signal path for
 * a process outside any covered cgroup, see run_overhead().
 *
 * Not a test: it prints figures and never fails on speed.
 */
#define _GNU_SOURCE

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "reap_util.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif

#define NSEC		1000000000LL
#define MAX_VICTIMS	64
#define MAX_REPS	1000
#define MAX_WORKERS	8	/* values of --workers */
#define TRACE_INSTANCE	TRACEFS "/instances/reap_bench"

enum method { M_PLAIN, M_MRELEASE, M_REAP, NR_METHODS };
static const char * const method_name[NR_METHODS] = {
	"plain", "mrelease", "reap_on_kill",
};

enum condition {
	C_NONE, C_CPUMAX5, C_CPUMAX1, C_CPUMAX1_1S, C_BUSYCPU, C_NICE,
	C_WEIGHT1, C_WEIGHT1_HEAVY, C_NICE19_PINNED, C_IDLE, C_IOMAX, NR_CONDS
};

/* No commas: these are the CSV's first column. */
static const char * const cond_name[NR_CONDS] = {
	"unthrottled", "cpu.max 5%", "cpu.max 1%", "cpu.max 1% (1 s period)",
	"busy pinned CPU", "nice 19 + load", "cpu.weight 1 vs 100",
	"cpu.weight 1 vs 10000", "nice 19 vs nice -20", "SCHED_IDLE vs nice -20",
	"io.max D state",
};

struct opts {
	long sizes_mib[4];
	int nr_sizes;
	int counts[8];
	int nr_counts;
	int reps;
	bool file;
	bool overhead;
	double ci_pct;
	const char *csv;
	const char *raw;
	bool conds[NR_CONDS];
	bool methods[NR_METHODS];
	int workers[MAX_WORKERS];	/* -1: leave the parameter alone */
	int nr_workers;
	long each_mib;			/* --each */
	bool trace;
};

static char root[PATH_MAX];
static bool have_reap, have_mrelease;

static const char *errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "unknown errno";
}

static const char help_text[] =
	"usage: reap_bench [options]\n"
	"  -s, --size MIB      victim size, repeatable (default 256 and 1024)\n"
	"  -n, --victims N     victims killed at once by cgroup.kill, repeatable\n"
	"                      (default 1, 4, 16, 64; total size is split among them)\n"
	"  -r, --reps N        repetitions per figure (default 5, at most 1000)\n"
	"  -c, --conditions L  comma list of: none,cpumax5,cpumax1,cpumax1s,\n"
	"                      busycpu,nice,weight1,weight10000,nice19,idle,iomax\n"
	"  -m, --methods L     comma list of: plain,mrelease,reap\n"
	"  -f, --file          also run victims whose memory is a written private\n"
	"                      mapping of a file in the working directory\n"
	"  -o, --overhead      only time kill(SIGKILL) of a process in a cgroup\n"
	"                      without the setting, and its ratio to kill(pid, 0),\n"
	"                      with the static key on and off (for kernel\n"
	"                      comparisons), until the 95% confidence interval of\n"
	"                      the median ratio is narrower than --ci percent of it\n"
	"      --ci PCT        for --overhead (default 0.5)\n"
	"      --raw FILE      for --overhead: every sample to FILE\n"
	"  -w, --workers L     comma list of workers that may unmap one victim\n"
	"                      (oom_kill.reap_workers; 0: the kernel's default):\n"
	"                      one reap_on_kill column each\n"
	"  -e, --each MIB      only the cgroup.kill rows (cpu.max 1%), every\n"
	"                      victim of MIB, N = 1 included\n"
	"  -T, --trace         where a reap's time goes, from its tracepoints:\n"
	"                      worker wake-up, the wait before it unmaps, unmapping\n"
	"  -t, --timeout S     a run waits at most S seconds for the memory\n"
	"                      (default 120); longer shows as >S\n"
	"      --csv FILE      also write every figure to FILE\n"
	"  -h, --help          this text\n"
	"Needs root, cgroup v2 with the memory and cpu controllers.  Without\n"
	"memory.reap_on_kill in the kernel, the other methods still run.\n";

/* --- cgroups ---------------------------------------------------------- */

static const char * const bench_cgs[] = { "victims", "hog", "covered" };

static char *bench_cg(const char *name)
{
	char *parent = cg_name(root, "reap_bench");
	char *cg = name ? cg_name(parent, name) : parent;

	if (name)
		free(parent);
	return cg;
}

static void destroy_cgroups(void)
{
	char *cg;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bench_cgs); i++) {
		cg = bench_cg(bench_cgs[i]);
		cg_destroy(cg);
		free(cg);
	}
	cg = bench_cg(NULL);
	cg_destroy(cg);
	free(cg);
}

static int setup_cgroups(void)
{
	char *parent = bench_cg(NULL), *cg;
	size_t i;
	int ret = -1;

	destroy_cgroups();
	if (cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory +cpu +cpuset"))
		goto out;
	/* Only the io.max condition needs it; without it, that one fails. */
	cg_write(parent, "cgroup.subtree_control", "+io");
	for (i = 0; i < ARRAY_SIZE(bench_cgs); i++) {
		cg = bench_cg(bench_cgs[i]);
		ret = cg_create(cg);
		free(cg);
		if (ret)
			goto out;
	}
out:
	free(parent);
	return ret;
}

/* --- runs and their errors -------------------------------------------- */

/* One run: a time, or the first call that failed. */
struct run {
	long long ns;		/* kill-to-free time, -1 if the run failed */
	long long first_ns;	/* until 1% came back, -1 if it did not */
	long long wake_ns;	/* the reap's tracepoints, see trace_breakdown() */
	long long prep_ns;
	long long unmap_ns;
	long long freed_ns;	/* kill to the first pages freed, in the kernel */
	bool traced;
	bool timed_out;		/* ns is the --timeout: a lower bound */
	const char *call;	/* the call that failed */
	int err;		/* its errno (0: no errno, see call) */
	int calls, failed;	/* process_mrelease() calls made and failed */
};

static void run_fail(struct run *r, const char *call, int err)
{
	r->ns = -1;
	if (!r->call) {
		r->call = call;
		r->err = err;
	}
}

/* --- victims ---------------------------------------------------------- */

struct victim_set {
	pid_t pid[MAX_VICTIMS];
	int pidfd[MAX_VICTIMS];
	int n;
	long anon;		/* bytes of anonymous memory in the cgroup */
};

static int make_file(size_t size)
{
	char name[] = "reap_bench.XXXXXX";
	int fd = mkstemp(name);

	if (fd < 0)
		return -1;
	unlink(name);
	if (ftruncate(fd, size)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Direct writes of this size, each slow under the io.max condition. */
#define IO_CHUNK	(64 << 10)

/*
 * For the io.max condition: rewrite a file in the working directory with
 * O_DIRECT for ever, so that once io.max throttles the victims' cgroup
 * they spend their time waiting for a write in D state.
 */
static void write_forever(void)
{
	char name[] = "reap_bench.io.XXXXXX";
	void *buf;
	int fd = mkstemp(name);

	if (fd < 0)
		_exit(4);
	unlink(name);
	close(fd);
	fd = open(name, O_RDWR | O_CREAT | O_DIRECT | O_EXCL, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, IO_CHUNK))
		_exit(4);
	unlink(name);
	memset(buf, 0xa5, IO_CHUNK);
	for (;;)
		if (pwrite(fd, buf, IO_CHUNK, 0) != IO_CHUNK)
			_exit(5);
}

static void victim(const char *cg, size_t size, int nice_level, int file_fd,
		   bool io, int ready)
{
	char *buf;

	if (cg_enter_current(cg))
		_exit(1);
	if (file_fd >= 0)
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			   file_fd, 0);
	else
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(2);
	/* Base pages, as a THP would be unmapped at once and hide the cost. */
	madvise(buf, size, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, size);
	if (nice_level)
		setpriority(PRIO_PROCESS, 0, nice_level);
	/* Closed: the spawner sees EOF once every victim is ready or dead. */
	spawn_ready(ready, "r", 1);
	if (io)
		write_forever();
	for (;;)
		pause();
}

/*
 * Fork @n victims of @size bytes each and wait until all of them have
 * written their memory.  The victims' pidfds are what the kill and
 * process_mrelease() use, so a failed pidfd_open() fails the run.
 */
static void spawn_victims(struct victim_set *v, int n, size_t size,
			  int nice_level, int file_fd, bool io, struct run *r)
{
	char *cg = bench_cg("victims");
	int p[2], i, got = 0;
	char c;

	v->n = 0;
	if (pipe(p)) {
		run_fail(r, "pipe", errno);
		goto out;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			run_fail(r, "fork", errno);
			break;
		}
		if (pid == 0) {
			close(p[0]);
			victim(cg, size, nice_level, file_fd, io, p[1]);
		}
		v->pid[v->n] = pid;
		v->pidfd[v->n] = syscall(__NR_pidfd_open, pid, 0);
		if (v->pidfd[v->n] < 0)
			run_fail(r, "pidfd_open", errno);
		v->n++;
	}
	/*
	 * Each victim closes its end once ready, and ours is closed now: a
	 * victim that dies before it is ready ends the read early.
	 */
	close(p[1]);
	while (got < v->n && read(p[0], &c, 1) == 1)
		got++;
	close(p[0]);
	if (got < n)
		run_fail(r, "victim setup (cgroup entry, mmap or write)", 0);
	v->anon = cg_read_key_long(cg, "memory.stat", "anon ");
	if (v->anon <= 0)
		run_fail(r, "memory.stat anon", 0);
out:
	free(cg);
}

static void reap_victims(struct victim_set *v)
{
	int i;

	for (i = 0; i < v->n; i++) {
		kill(v->pid[i], SIGKILL);
		waitpid(v->pid[i], NULL, 0);
		if (v->pidfd[i] >= 0)
			close(v->pidfd[i]);
	}
	v->n = 0;
}

/* --- conditions ------------------------------------------------------- */

static pid_t hogs[8];
static int nr_hogs;

static void start_hog(const char *cg, int nice_level)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (cg_enter_current(cg))
			_exit(1);
		setpriority(PRIO_PROCESS, 0, nice_level);
		for (;;)
			;
	}
	if (pid > 0)
		hogs[nr_hogs++] = pid;
}

static void stop_hogs(void)
{
	while (nr_hogs) {
		nr_hogs--;
		kill(hogs[nr_hogs], SIGKILL);
		waitpid(hogs[nr_hogs], NULL, 0);
	}
}

/* The victims share the last CPU with one busy loop at @nice_level. */
static void share_cpu_with_hog(const char *victims, const char *hog,
			       int nice_level)
{
	char cpu[24];

	snprintf(cpu, sizeof(cpu), "%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
	cg_write(victims, "cpuset.cpus", cpu);
	cg_write(hog, "cpuset.cpus", cpu);
	start_hog(hog, nice_level);
}

/* Before the victims allocate: pinning and load. */
static void condition_before(enum condition c, int *nice_level)
{
	char *victims = bench_cg("victims"), *hog = bench_cg("hog");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;

	*nice_level = 0;
	cg_write(victims, "cpuset.cpus", "");
	cg_write(hog, "cpuset.cpus", "");
	switch (c) {
	case C_BUSYCPU:
	case C_NICE19_PINNED:
	case C_IDLE:
		share_cpu_with_hog(victims, hog, -20);
		break;
	case C_WEIGHT1:
	case C_WEIGHT1_HEAVY:
		share_cpu_with_hog(victims, hog, 0);
		break;
	case C_NICE:
		*nice_level = 19;
		for (i = 0; i < ncpu; i++)
			start_hog(hog, 0);
		break;
	default:
		break;
	}
	free(victims);
	free(hog);
}

/*
 * io.max for the block device under the working directory: its whole disk
 * (blk-throttle takes no partitions), 16 KiB/s of writes, so that each of
 * the victims' 64 KiB direct writes waits about 4 s.
 */
static int throttle_io(const char *cg, const char *limit)
{
	char path[PATH_MAX], dev[32], buf[64];
	struct stat st;

	if (stat(".", &st) || !major(st.st_dev))
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/partition",
		 major(st.st_dev), minor(st.st_dev));
	if (!access(path, F_OK)) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev",
			 major(st.st_dev), minor(st.st_dev));
		if (read_text(path, dev, sizeof(dev)) <= 0)
			return -ENODEV;
		dev[strcspn(dev, "\n")] = 0;
	} else {
		snprintf(dev, sizeof(dev), "%u:%u", major(st.st_dev),
			 minor(st.st_dev));
	}
	snprintf(buf, sizeof(buf), "%s %s", dev, limit);
	return cg_write(cg, "io.max", buf);
}

/* Every victim's scheduling policy or nice level, after it allocated. */
static int set_victims_sched(const struct victim_set *v, int policy, int nice)
{
	struct sched_param sp = { };
	int i;

	for (i = 0; i < v->n; i++) {
		if (policy != SCHED_OTHER &&
		    sched_setscheduler(v->pid[i], policy, &sp))
			return -errno;
		if (nice && setpriority(PRIO_PROCESS, v->pid[i], nice))
			return -errno;
	}
	return 0;
}

/* After they allocated, so the allocation itself is not throttled. */
static void condition_after(enum condition c, const struct victim_set *v,
			    struct run *r)
{
	char *victims = bench_cg("victims"), *hog = bench_cg("hog");
	const char *call = "cpu.max";
	int ret = 0;

	switch (c) {
	case C_CPUMAX5:
		ret = cg_write(victims, "cpu.max", "5000 100000");
		break;
	case C_CPUMAX1:
		ret = cg_write(victims, "cpu.max", "1000 100000");
		break;
	case C_CPUMAX1_1S:
		ret = cg_write(victims, "cpu.max", "10000 1000000");
		break;
	case C_WEIGHT1:
	case C_WEIGHT1_HEAVY:
		call = "cpu.weight";
		ret = cg_write(victims, "cpu.weight", "1");
		if (!ret && c == C_WEIGHT1_HEAVY)
			ret = cg_write(hog, "cpu.weight", "10000");
		break;
	case C_NICE19_PINNED:
		call = "setpriority";
		ret = set_victims_sched(v, SCHED_OTHER, 19);
		break;
	case C_IDLE:
		call = "sched_setscheduler(SCHED_IDLE)";
		ret = set_victims_sched(v, SCHED_IDLE, 0);
		break;
	case C_IOMAX:
		call = "io.max on the working directory's disk";
		ret = throttle_io(victims, "wbps=16384");
		break;
	default:
		break;
	}
	if (ret)
		run_fail(r, call, -ret);
	free(victims);
	free(hog);
}

static void condition_end(void)
{
	char *victims = bench_cg("victims"), *hog = bench_cg("hog");

	cg_write(victims, "cpu.max", "max");
	cg_write(victims, "cpu.weight", "100");
	cg_write(hog, "cpu.weight", "100");
	throttle_io(victims, "wbps=max");
	stop_hogs();
	free(victims);
	free(hog);
}

/* --- one measurement -------------------------------------------------- */

/* --timeout: how long a run waits for the memory, in seconds. */
static long timeout_s = 120;

/*
 * @cg's memory.current, opened for cg_read_long_fd(), or -1 (errno set):
 * one pread() per sample, not an open() and a close() as well, as the
 * poller shares the CPUs with what it times.
 */
static int open_current(const char *cg)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * ns until the victims' cgroup gave back 90% of its anon memory, -1 if it
 * did not within --timeout, -2 if memory.current could not be read (errno
 * set); *@first: until it gave back 1%, or -1.  The poller stays SCHED_OTHER,
 * although beside the reap's workers (nice -20) it may look late: one
 * that preempted what it times every 200us (SCHED_FIFO) slowed victims
 * freeing themselves by 50 to 70% under emulation.
 */
static long long wait_freed(int fd, long current0, long anon, long long t0,
			    long long *first)
{
	long target = current0 - anon / 10 * 9;
	long start = current0 - anon / 100;
	long long deadline = t0 + timeout_s * NSEC;

	*first = -1;
	while (now_ns() < deadline) {
		long cur = cg_read_long_fd(fd);

		if (cur < 0)
			return -2;
		if (cur <= start && *first < 0)
			*first = now_ns() - t0;
		if (cur <= target)
			return now_ns() - t0;
		usleep(200);
	}
	return -1;
}

/* --- the reap's tracepoints --------------------------------------------- */

static bool tracing;

/* The number after "@key=" in @line, or -1. */
static long long trace_value(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* The thread that wrote a trace line: the number before " [CPU]". */
static long long trace_tid(const char *line)
{
	const char *p = strstr(line, " [");

	while (p && p > line && isdigit((unsigned char)p[-1]))
		p--;
	return p && p > line && p[-1] == '-' ? strtoll(p, NULL, 10) : -1;
}

/* When @line, one of the reap's events, was recorded (ns); -1 if not one. */
static long long trace_line_ns(const char *line)
{
	const char *p = strstr(line, ": reap_");

	return p ? tracefs_line_ns(line, p) : -1;
}

/*
 * Where the reaps of one run spent their time, from the timestamps of the
 * instance's events (see the kernel's include/trace/events/reap_on_kill.h),
 * averaged over the run's victims: wake is queue to start (the kill queued
 * the work, a worker picked it up), prep is start to unmap (the fence, the
 * robust lists, the check for other users of the mm, waits for mmap_lock),
 * unmap is unmapping to the end, and freed is the kill (the queue event,
 * inside the kill) to the moment the reap's own worker freed the pages of
 * its first claim: the kill-to-first-pages latency in the kernel.  The
 * unmap event comes as the unmapping starts, and the oom:reap_split event
 * of the same worker thread when it is over, with its first claim's time.
 * The finish events may come after the 90% point: they are waited for, up
 * to a second.  Return: victims whose four events were found.
 */
static int trace_breakdown(struct run *r, int victims)
{
	long long deadline = now_ns() + NSEC, t;
	struct trace_pid {
		long long pid, queue, start, unmap, freed, tid;
	} ev[MAX_VICTIMS];
	long long sum[4] = { };
	char path[PATH_MAX], line[512];
	int found = 0, finished, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", TRACE_INSTANCE);
	do {
		finished = 0;
		f = fopen(path, "r");
		if (!f)
			return 0;
		while (fgets(line, sizeof(line), f))
			finished += !!strstr(line, "reap_on_kill_finish:");
		fclose(f);
	} while (finished < victims && now_ns() < deadline && (sleep_ms(10), 1));

	/* Each pid's events come in order: queue, start, unmap, finish. */
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		long long pid = trace_value(line, " pid=");
		struct trace_pid *e;
		int i;

		t = trace_line_ns(line);
		if (t < 0)
			continue;
		if (strstr(line, ": reap_split: ")) {
			/* The last reap whose unmap this thread started. */
			for (i = n - 1; i >= 0; i--) {
				if (ev[i].tid == trace_tid(line) &&
				    ev[i].unmap >= 0 && ev[i].freed < 0) {
					ev[i].freed = ev[i].unmap +
						trace_value(line, " first_freed_ns=");
					break;
				}
			}
			continue;
		}
		for (i = 0; i < n && ev[i].pid != pid; i++)
			;
		if (i == n) {
			if (n == MAX_VICTIMS)
				continue;
			ev[n++] = (struct trace_pid){ pid, -1, -1, -1, -1, -1 };
		}
		e = &ev[i];
		if (strstr(line, ": reap_on_kill_queue: ")) {
			e->queue = t;
		} else if (strstr(line, ": reap_on_kill_start: ")) {
			e->start = t;
		} else if (strstr(line, ": reap_on_kill_unmap: ")) {
			e->unmap = t;
			e->tid = trace_tid(line);
		} else if (strstr(line, ": reap_on_kill_finish: ")) {
			if (e->queue >= 0 && e->start >= e->queue &&
			    e->unmap >= e->start && t >= e->unmap) {
				sum[0] += e->start - e->queue;
				sum[1] += e->unmap - e->start;
				sum[2] += t - e->unmap;
				sum[3] += (e->freed > e->unmap ? e->freed : e->unmap) -
					  e->queue;
				found++;
			}
		}
	}
	fclose(f);
	if (found) {
		r->wake_ns = sum[0] / found;
		r->prep_ns = sum[1] / found;
		r->unmap_ns = sum[2] / found;
		r->freed_ns = sum[3] / found;
		r->traced = true;
	}
	return found;
}

/* The kill, as a killer would send it, and for mrelease the reap. */
static void kill_victims(enum method m, const char *cg, struct victim_set *v,
			 struct run *r)
{
	int i, ret;

	if (v->n > 1) {
		ret = cg_write(cg, "cgroup.kill", "1");
		if (ret)
			run_fail(r, "cgroup.kill", -ret);
	} else if (syscall(__NR_pidfd_send_signal, v->pidfd[0], SIGKILL,
			   NULL, 0)) {
		run_fail(r, "pidfd_send_signal", errno);
	}
	if (m != M_MRELEASE || r->call)
		return;
	/*
	 * Right away and once, as lmkd does: a victim that already dropped
	 * its mm (ESRCH) is not retried, its memory comes back when it is
	 * through exit_mmap().
	 */
	for (i = 0; i < v->n; i++) {
		r->calls++;
		if (syscall(__NR_process_mrelease, v->pidfd[i], 0)) {
			r->failed++;
			if (errno != ESRCH)
				run_fail(r, "process_mrelease", errno);
		}
	}
}

/* *freed gets the bytes that came back. */
static struct run measure(enum method m, enum condition c, size_t total,
			  int n, bool file, long *freed)
{
	char *cg = bench_cg("victims");
	struct victim_set v = { };
	struct run r = { .ns = -1, .first_ns = -1 };
	int nice_level, file_fd = -1, fd = -1, ret;
	long current0;
	long long t0, t, first;

	ret = cg_write(cg, "memory.reap_on_kill", m == M_REAP ? "1" : "0");
	if (ret && (m == M_REAP || have_reap))
		run_fail(&r, "memory.reap_on_kill", -ret);
	condition_before(c, &nice_level);
	if (file) {
		file_fd = make_file(total / n);
		if (file_fd < 0)
			run_fail(&r, "victim file", errno);
	}
	if (!r.call)
		spawn_victims(&v, n, total / n, nice_level, file_fd,
			      c == C_IOMAX, &r);
	if (r.call)
		goto out;
	condition_after(c, &v, &r);
	/*
	 * Let the allocation's aftermath (LRU batches, vmstat and rstat
	 * updates, kworkers) settle before the clock starts.  The victims
	 * sleep meanwhile: at cpu.max they start with a full quota, which
	 * may take them into their exit path before the throttle bites.
	 */
	usleep(200000);
	fd = open_current(cg);
	current0 = fd < 0 ? -1 : cg_read_long_fd(fd);
	if (current0 < 0) {
		run_fail(&r, "memory.current", errno);
		goto out;
	}
	if (tracing && m == M_REAP && tracefs_clear(TRACE_INSTANCE))
		run_fail(&r, "clearing the trace buffer", errno);

	t0 = now_ns();
	kill_victims(m, cg, &v, &r);
	t = wait_freed(fd, current0, v.anon, t0, &first);
	if (t == -2)
		run_fail(&r, "memory.current", errno);
	/*
	 * A victim that did not give its memory back within the timeout is
	 * a figure too, a lower bound: the slowest conditions are the point.
	 */
	if (t == -1) {
		t = timeout_s * NSEC;
		r.timed_out = true;
	}
	if (!r.call) {
		r.ns = t;
		r.first_ns = first;
	}
	if (tracing && m == M_REAP && !r.call)
		trace_breakdown(&r, v.n);
	*freed = v.anon / 10 * 9;
out:
	if (fd >= 0)
		close(fd);
	condition_end();
	reap_victims(&v);
	if (file_fd >= 0)
		close(file_fd);
	free(cg);
	return r;
}

/* --- statistics and output -------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

struct figure {
	int runs, ok;			/* runs made, runs without an error */
	long long min, median, max;	/* ns, over the runs without error */
	double mib_s;			/* at the median */
	const char *call;		/* the first failure, if any */
	int err;
	int calls, failed;		/* process_mrelease() calls */
	int timeouts;			/* runs that reached --timeout */
	int note;			/* its number under the table, or 0 */
	int workers;			/* oom_kill.reap_workers, -1: not set */
	/* medians over the runs that have them, ns, or -1 */
	long long first, wake, prep, unmap, freed;
};

/* The median of @v[0 .. @n), sorted in place; -1 if @n is 0. */
static long long median_ll(long long *v, int n)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(v[0]), cmp_ll);
	return v[n / 2];
}

/* Whether the median is a timeout, so only a lower bound. */
static bool median_timed_out(const struct figure *f)
{
	return f->ok && f->ok / 2 >= f->ok - f->timeouts;
}

static bool progress;

/* The runs of one column so far, before their medians are taken. */
struct samples {
	long long t[MAX_REPS], first[MAX_REPS], wake[MAX_REPS],
		prep[MAX_REPS], unmap[MAX_REPS], freed[MAX_REPS];
	int nfirst, ntraced;
	long freed_bytes;
};

/* Adds run @r to figure @f and its samples @s. */
static void add_run(struct figure *f, struct samples *s, const struct run *r)
{
	f->runs++;
	f->calls += r->calls;
	f->failed += r->failed;
	if (r->call) {
		if (!f->call) {
			f->call = r->call;
			f->err = r->err;
		}
		return;
	}
	s->t[f->ok++] = r->ns;
	f->timeouts += r->timed_out;
	if (r->first_ns >= 0)
		s->first[s->nfirst++] = r->first_ns;
	if (r->traced) {
		s->wake[s->ntraced] = r->wake_ns;
		s->prep[s->ntraced] = r->prep_ns;
		s->freed[s->ntraced] = r->freed_ns;
		s->unmap[s->ntraced++] = r->unmap_ns;
	}
}

/* Takes @f's medians and range from its samples @s. */
static void finish_figure(struct figure *f, struct samples *s)
{
	f->min = -1;
	f->median = -1;
	f->max = -1;
	f->first = median_ll(s->first, s->nfirst);
	f->wake = median_ll(s->wake, s->ntraced);
	f->prep = median_ll(s->prep, s->ntraced);
	f->unmap = median_ll(s->unmap, s->ntraced);
	f->freed = median_ll(s->freed, s->ntraced);
	if (!f->ok)
		return;
	qsort(s->t, f->ok, sizeof(s->t[0]), cmp_ll);
	f->min = s->t[0];
	f->max = s->t[f->ok - 1];
	f->median = s->t[f->ok / 2];
	f->mib_s = f->median ? (double)s->freed_bytes / (1 << 20) /
			       ((double)f->median / NSEC) : 0;
}

static FILE *csv;
static char notes[16384];	/* under the table */
static int nr_notes;

static void describe_error(char *buf, size_t len, const struct figure *f)
{
	int n;

	n = snprintf(buf, len, "%s", f->call);
	if (f->err && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ": %s (%s)", errname(f->err),
			 strerror(f->err));
}

static void add_note(struct figure *f, enum method m, const char *label,
		     long size_mib, int n)
{
	size_t used = strlen(notes);
	char what[160];
	int len;

	f->note = ++nr_notes;
	if (f->call) {
		describe_error(what, sizeof(what), f);
		len = snprintf(notes + used, sizeof(notes) - used,
			       "# [%d] %s, %s, %ld MiB x%d: %d of %d runs failed, left out: %s",
			       f->note, method_name[m], label, size_mib, n,
			       f->runs - f->ok, f->runs, what);
	} else {
		len = snprintf(notes + used, sizeof(notes) - used,
			       "# [%d] %s, %s, %ld MiB x%d: timed all the same where process_mrelease() found no mm (ESRCH)",
			       f->note, method_name[m], label, size_mib, n);
	}
	if (len < 0 || (size_t)len >= sizeof(notes) - used)
		return;
	used += len;
	if (f->calls)
		snprintf(notes + used, sizeof(notes) - used,
			 "; %d of %d process_mrelease() calls failed\n",
			 f->failed, f->calls);
	else
		snprintf(notes + used, sizeof(notes) - used, "\n");
}

#define CELL	" %-7s%-12s%-4s"	/* median, min-max, note: 24 wide */

/* Appends to @line a cell: median, min-max, [n] for a note; err if all failed. */
static void format_cell(char *line, size_t len, const struct figure *f)
{
	char median[16] = "err", range[32] = "", mark[8] = "";
	size_t used = strlen(line);

	if (f->note)
		snprintf(mark, sizeof(mark), "[%d]", f->note);
	if (f->ok) {
		snprintf(median, sizeof(median), "%s%.0f",
			 median_timed_out(f) ? ">" : "", f->median / 1e6);
		snprintf(range, sizeof(range), "%.0f-%.0f", f->min / 1e6,
			 f->max / 1e6);
	}
	snprintf(line + used, len - used, CELL, median, range, mark);
}

/* Prints @line without the blanks the last cell padded it with. */
static void print_line(char *line)
{
	size_t len = strlen(line);

	while (len && line[len - 1] == ' ')
		line[--len] = 0;
	printf("%s\n", line);
	fflush(stdout);
}

/* A column of ms, empty for no figure. */
static void print_csv_ms(long long ns)
{
	if (ns >= 0)
		fprintf(csv, ",%.3f", ns / 1e6);
	else
		fputc(',', csv);
}

static void print_csv(const char *cond, bool file, long size_mib, int n,
		      enum method m, const struct figure *f)
{
	char what[160] = "";

	if (!csv)
		return;
	if (f->call)
		describe_error(what, sizeof(what), f);
	fprintf(csv, "%s,%d,%ld,%d,%s,", cond, file, size_mib, n, method_name[m]);
	if (f->ok)
		fprintf(csv, "%.3f,%.3f,%.3f,%.0f", f->median / 1e6,
			f->min / 1e6, f->max / 1e6, f->mib_s);
	else
		fprintf(csv, "err,,,");
	fprintf(csv, ",%d,%d,%s,%d,%d,%d", f->runs, f->runs - f->ok, what,
		f->timeouts, median_timed_out(f), f->workers);
	print_csv_ms(f->first);
	print_csv_ms(f->wake);
	print_csv_ms(f->prep);
	print_csv_ms(f->unmap);
	print_csv_ms(f->freed);
	fputc('\n', csv);
}

/* The figures of one row, in the table's column order. */
struct row {
	struct figure f[NR_METHODS + MAX_WORKERS];
	enum method m[NR_METHODS + MAX_WORKERS];
	int nr;
};

static void print_row(const char *cond, long size_mib, int n, bool file,
		      struct row *row)
{
	char label[64], line[512];
	int i;

	snprintf(label, sizeof(label), "%s%s", cond, file ? " (file)" : "");
	if (progress)
		fprintf(stderr, "\r\033[K");
	snprintf(line, sizeof(line), "%-24s %5ld %3d", label, size_mib, n);
	for (i = 0; i < row->nr; i++) {
		if (row->f[i].call || row->f[i].failed)
			add_note(&row->f[i], row->m[i], label, size_mib, n);
		format_cell(line, sizeof(line), &row->f[i]);
		print_csv(cond, file, size_mib, n, row->m[i], &row->f[i]);
	}
	print_line(line);
}

/*
 * Under the table with --trace or a 1% column: the reap's own figures,
 * one line per reap_on_kill column, median ms.
 */
static void print_detail(const char *cond, long size_mib, int n,
			 const struct row *row)
{
	int i;

	for (i = 0; i < row->nr; i++) {
		const struct figure *f = &row->f[i];

		if (f->first < 0 && f->wake < 0)
			continue;
		printf("#   %s, %ld MiB x%d, %s", cond, size_mib, n,
		       method_name[row->m[i]]);
		if (f->workers >= 0)
			printf(" (workers=%d)", f->workers);
		if (f->first >= 0)
			printf(": first 1%% back after %.2f ms", f->first / 1e6);
		if (f->wake >= 0) {
			printf("; queue->start %.3f, start->unmap %.3f", f->wake / 1e6,
			       f->prep / 1e6);
			printf(", unmapping %.1f ms; first pages freed %.3f ms after the kill",
			       f->unmap / 1e6, f->freed / 1e6);
		}
		printf("\n");
	}
}

static void print_header(const struct opts *o)
{
	char line[512], name[32];
	size_t used;
	int m, w;

	printf("# kill-to-free time, ms: from the kill until the victims' cgroup had given\n"
	       "# back 90%% of the anonymous memory it held (memory.current read every 200us\n"
	       "# by this unthrottled task); median (min-max) of %d runs, the columns\n"
	       "# taking turns run by run; N victims killed together by cgroup.kill, the\n"
	       "# size split among them.  Columns:\n",
	       o->reps);
	if (o->methods[M_PLAIN])
		printf("#   plain         %s\n",
		       "SIGKILL; the victims free their memory on their way out");
	if (o->methods[M_MRELEASE])
		printf("#   mrelease      the same kill, then process_mrelease() on every victim\n"
		       "#                 from this task, right after the kill and once (as lmkd)\n");
	if (o->methods[M_REAP])
		printf("#   reap_on_kill  %s\n",
		       "the same kill, memory.reap_on_kill=1 on the victims' cgroup");
	if (o->methods[M_REAP] && o->workers[0] >= 0)
		printf("#   reap w=W      %s\n",
		       "the same, with oom_kill.reap_workers=W (0: the default)");
	printf("# A run in which a call failed is an error, left out of the figure (a\n"
	       "# process_mrelease() that found no mm is not: the run is timed): [n]\n"
	       "# refers to a note under the table, err means every run failed.  A run\n"
	       "# still waiting after --timeout (%ld s) counts as that long: >ms.\n",
	       timeout_s);
	snprintf(line, sizeof(line), "%-24s %5s %3s", "victim condition", "MiB", "N");
	for (m = 0; m < NR_METHODS; m++) {
		if (!o->methods[m])
			continue;
		for (w = 0; w < (m == M_REAP ? o->nr_workers : 1); w++) {
			if (m == M_REAP && o->workers[w] >= 0)
				snprintf(name, sizeof(name), "reap w=%d", o->workers[w]);
			else
				snprintf(name, sizeof(name), "%s", method_name[m]);
			used = strlen(line);
			snprintf(line + used, sizeof(line) - used, " %-23s", name);
		}
	}
	print_line(line);
}

/* Set oom_kill.reap_workers, unless @workers is -1. */
static int set_workers(int workers)
{
	char val[16];
	int len;

	if (workers < 0)
		return 0;
	len = snprintf(val, sizeof(val), "%d", workers);
	return write_text(REAP_WORKERS_PARAM, val, len) < 0 ? -1 : 0;
}

/*
 * The columns take turns run by run, not in blocks of --reps: the speed of
 * an emulated machine on a shared host drifts over minutes, and a drift
 * then reaches every column alike instead of favouring one block.
 */
static void run_row(enum condition c, long size_mib, int n, bool file,
		    const struct opts *o)
{
	static struct samples samples[NR_METHODS + MAX_WORKERS];
	struct row row = { };
	struct figure *f;
	struct run r;
	int m, w, i, col;

	for (m = 0; m < NR_METHODS; m++) {
		if (!o->methods[m])
			continue;
		for (w = 0; w < (m == M_REAP ? o->nr_workers : 1); w++) {
			row.f[row.nr].workers = m == M_REAP ? o->workers[w] : -1;
			memset(&samples[row.nr], 0, sizeof(samples[0]));
			row.m[row.nr++] = m;
		}
	}
	for (i = 0; i < o->reps; i++) {
		for (col = 0; col < row.nr; col++) {
			f = &row.f[col];
			m = row.m[col];
			if (progress)
				fprintf(stderr, "\r  running: %s, %ld MiB x%d, %s, run %d/%d\033[K",
					cond_name[c], size_mib, n, method_name[m],
					i + 1, o->reps);
			if (m == M_REAP && set_workers(f->workers)) {
				r = (struct run){ .call = "writing " REAP_WORKERS_PARAM,
						  .err = errno };
			} else {
				r = measure(m, c, (size_t)size_mib << 20, n, file,
					    &samples[col].freed_bytes);
			}
			add_run(f, &samples[col], &r);
		}
	}
	for (col = 0; col < row.nr; col++)
		finish_figure(&row.f[col], &samples[col]);
	set_workers(o->workers[0] >= 0 ? 0 : -1);
	print_row(cond_name[c], size_mib, n, file, &row);
	print_detail(cond_name[c], size_mib, n, &row);
}

/* --- overhead on the fatal-signal path ---------------------------------- */

/*
 * The series hooks complete_signal() where it turns a signal into a group
 * exit: a static branch, taken while any cgroup has memory.reap_on_kill
 * set, then a look at the memcg of the process, whose setting in effect
 * the memory controller keeps up to date on writes.
 * What that costs a process outside covered cgroups is measured by timing
 * kill(SIGKILL) alone, the syscall whose work is that path, on a child that
 * has not run yet: this task is SCHED_FIFO and pinned, the child is born
 * (CLONE_INTO_CGROUP) in a cgroup confined to the same CPU, so it cannot run
 * before it is killed and the kill never has to wake or interrupt anybody.
 * The child exits after the clock stopped, while we wait for it.
 *
 * Right before, kill(child, 0) is timed too: the same syscall entry, pid
 * lookup and permission check, without the signal.  Under emulation on a
 * shared host the speed of the machine drifts by tens of percent from one
 * second to the next; the ratio of the two, taken microseconds apart, does
 * not, and is what compares across boots (stock and patched kernels).
 *
 * Key on: the sibling cgroup "covered" has memory.reap_on_kill=1, so the
 * branch is taken and the memcg looked at; key off: no cgroup has it, the
 * branch is patched out.  The clone3() that makes each child is timed as
 * well: its key_on / key_off shows that a fork pays nothing.
 * Blocks of OH_BLOCK samples alternate between the two, the first sample
 * of a block is dropped (it runs freshly patched code), and pairs of
 * adjacent blocks give the paired comparison.
 * Sampling stops once the 95% CI of every state's median ratio is narrower
 * than --ci percent of it.
 */
#define OH_BLOCK	100
#define OH_MIN_ROUNDS	30
#define OH_MAX_SAMPLES	(OH_BLOCK * 2000)	/* per state */
#define OH_MAX_SECONDS	600

enum key_state { KEY_ON, KEY_OFF, KEY_STOCK, NR_KEY_STATES };
static const char * const key_name[NR_KEY_STATES] = {
	"key_on", "key_off", "stock",
};

struct oh_state {
	long long *kill, *ref;	/* per sample, ns */
	long long *ratio;	/* per sample, kill / ref in millionths */
	long long *block_med;	/* per block, median kill time, ns */
	long long *block_fork;	/* per block, median clone3() time, ns */
	int n, blocks;
	int spoiled;		/* samples whose child ran before the kill */
};

struct oh_stat {
	long long median, lo, hi;
};

static double sqrt_d(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	for (i = 0; i < 64; i++)
		r = (r + x / r) / 2;
	return r;
}

/*
 * Distribution-free 95% CI of the median: the order statistics at ranks
 * n/2 -+ 1.96 * sqrt(n) / 2 of the sorted sample.  Sorts @t.
 */
static struct oh_stat median_ci(long long *t, int n)
{
	double h = 0.98 * sqrt_d(n);
	long j = (long)(n / 2.0 - h), k = (long)(n / 2.0 + h + 1);
	struct oh_stat s;

	qsort(t, n, sizeof(*t), cmp_ll);
	s.median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	s.lo = t[j < 0 ? 0 : j];
	s.hi = t[k > n - 1 ? n - 1 : k];
	return s;
}

/* The same, on a copy: the samples keep their order. */
static struct oh_stat median_ci_of(const long long *t, int n)
{
	long long *copy = malloc(sizeof(*copy) * n);
	struct oh_stat s = { -1, -1, -1 };

	if (!copy)
		return s;
	memcpy(copy, t, sizeof(*copy) * n);
	s = median_ci(copy, n);
	free(copy);
	return s;
}

static FILE *raw;

/* One block of samples into @s; returns 0, or -1 with a message. */
static int oh_block(int cg_fd, int *ran, struct oh_state *s, enum key_state k)
{
	long long kill_ns[OH_BLOCK], fork_ns[OH_BLOCK];
	int i, status, kept = 0;

	for (i = 0; i < OH_BLOCK; i++) {
		int before = __atomic_load_n(ran, __ATOMIC_SEQ_CST), r0, r1;
		long long tf = now_ns(), t0, t1, t2;
		pid_t pid = clone_into_cgroup(cg_fd);
		bool spoiled;

		if (pid < 0) {
			fprintf(stderr, "reap_bench: clone3(CLONE_INTO_CGROUP): %s\n",
				strerror(errno));
			return -1;
		}
		if (pid == 0) {
			/* Only if we ran before the kill, which spoils the sample. */
			__atomic_fetch_add(ran, 1, __ATOMIC_SEQ_CST);
			for (;;)
				pause();
		}
		t0 = now_ns();
		r0 = kill(pid, 0);
		t1 = now_ns();
		r1 = kill(pid, SIGKILL);
		t2 = now_ns();
		if (r0 || r1) {
			fprintf(stderr, "reap_bench: kill(%d, %s): %s\n", pid,
				r0 ? "0" : "SIGKILL", strerror(errno));
			return -1;
		}
		if (waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status) ||
		    WTERMSIG(status) != SIGKILL) {
			fprintf(stderr, "reap_bench: child %d: wait status %#x, %s\n",
				pid, status, "want killed by SIGKILL");
			return -1;
		}
		/*
		 * A child that ran went to sleep in pause(): its kill had to
		 * wake it.  That happens when RT throttling lets it run.
		 */
		spoiled = __atomic_load_n(ran, __ATOMIC_SEQ_CST) != before;
		if (raw)
			fprintf(raw, "%s,%d,%d,%lld,%lld,%d\n", key_name[k],
				s->blocks, i, t1 - t0, t2 - t1, spoiled);
		s->spoiled += spoiled;
		/* The first kill after the key changed runs freshly patched code. */
		if (!i || spoiled)
			continue;
		s->kill[s->n] = t2 - t1;
		s->ref[s->n] = t1 - t0;
		s->ratio[s->n] = (t2 - t1) * 1000000 / (t1 - t0 ? t1 - t0 : 1);
		fork_ns[kept] = t0 - tf;
		kill_ns[kept++] = t2 - t1;
		s->n++;
	}
	s->block_fork[s->blocks] = kept ? median_ci(fork_ns, kept).median : 0;
	s->block_med[s->blocks++] = kept ? median_ci(kill_ns, kept).median : 0;
	return 0;
}

static int oh_set_key(const char *covered, enum key_state k)
{
	int ret;

	if (k == KEY_STOCK)
		return 0;
	ret = cg_write(covered, "memory.reap_on_kill", k == KEY_ON ? "1" : "0");
	if (ret)
		fprintf(stderr, "reap_bench: memory.reap_on_kill: %s\n", strerror(-ret));
	return ret;
}

/* Pin to the last CPU and become SCHED_FIFO; children start SCHED_OTHER. */
static int oh_isolate(const char *victims, int *cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;
	char buf[16];

	*cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	snprintf(buf, sizeof(buf), "%d", *cpu);
	CPU_ZERO(&set);
	CPU_SET(*cpu, &set);
	if (cg_write(victims, "cpuset.cpus", buf) ||
	    sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
		fprintf(stderr, "reap_bench: cannot pin to CPU %d or become SCHED_FIFO: %s\n",
			*cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static bool oh_precise(const struct oh_state *s, double pct)
{
	struct oh_stat k = median_ci_of(s->ratio, s->n);

	return k.median > 0 && 100.0 * (k.hi - k.lo) < pct * k.median;
}

static void oh_report(enum key_state k, const struct oh_state *s)
{
	struct oh_stat t = median_ci_of(s->kill, s->n);
	struct oh_stat r = median_ci_of(s->ratio, s->n);
	struct oh_stat ref = median_ci_of(s->ref, s->n);
	long long bmin = s->block_med[0], bmax = s->block_med[0];
	int i;

	for (i = 1; i < s->blocks; i++) {
		if (s->block_med[i] < bmin)
			bmin = s->block_med[i];
		if (s->block_med[i] > bmax)
			bmax = s->block_med[i];
	}
	printf("%-7s kill(SIGKILL) median %lld ns, 95%% CI %lld-%lld (%.2f%% of it), n = %d",
	       key_name[k], t.median, t.lo, t.hi,
	       100.0 * (t.hi - t.lo) / t.median, s->n);
	printf(" in %d blocks, block medians %lld-%lld", s->blocks, bmin, bmax);
	printf("; %d dropped: the child had run\n", s->spoiled);
	printf("%-7s kill(SIGKILL) / kill(pid, 0) median %.4f, 95%% CI %.4f-%.4f (%.2f%% of it)",
	       key_name[k], r.median / 1e6, r.lo / 1e6, r.hi / 1e6,
	       100.0 * (r.hi - r.lo) / r.median);
	printf("; kill(pid, 0) median %lld ns\n", ref.median);
	if (csv)
		fprintf(csv, "%s,%d,%d,%lld,%lld,%lld,%lld,%.6f,%.6f,%.6f\n",
			key_name[k], s->n, s->blocks, t.median, t.lo, t.hi,
			ref.median, r.median / 1e6, r.lo / 1e6, r.hi / 1e6);
}

/*
 * key_on against key_off: the ratios of adjacent blocks' medians, of
 * kill(SIGKILL) ("paired", in the CSV) or of the clone3() that made the
 * child ("paired_fork", which should be 1).
 */
static void oh_report_pairs(const long long *on, const long long *off,
			    int blocks, const char *what, const char *row)
{
	long long *r = malloc(sizeof(*r) * (blocks + 1));
	struct oh_stat p;
	int i, n = 0;

	for (i = 0; r && i < blocks; i++)
		/* A block all of whose children ran has no median. */
		if (on[i] && off[i])
			r[n++] = on[i] * 1000000 / off[i];
	if (n < 2) {
		free(r);
		return;
	}
	p = median_ci(r, n);
	free(r);
	printf("key_on / key_off, paired: %+.2f%% (95%% CI %+.2f..%+.2f%%)",
	       p.median / 1e4 - 100, p.lo / 1e4 - 100, p.hi / 1e4 - 100);
	printf(", median ratio of the median %s of %d pairs of adjacent blocks\n",
	       what, n);
	if (csv)
		fprintf(csv, "%s,,%d,,,,,%.6f,%.6f,%.6f\n", row, n, p.median / 1e6,
			p.lo / 1e6, p.hi / 1e6);
}

static int run_overhead(const struct opts *o)
{
	char *victims = bench_cg("victims"), *covered = bench_cg("covered");
	struct oh_state st[NR_KEY_STATES] = { };
	enum key_state k, first = have_reap ? KEY_ON : KEY_STOCK;
	enum key_state last = have_reap ? KEY_OFF : KEY_STOCK;
	long long t0 = now_ns();
	int cg_fd = -1, cpu, ret = -1, round;
	bool done = false;
	int *ran;

	ran = mmap(NULL, sizeof(*ran), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ran == MAP_FAILED)
		goto out;
	if (have_reap && cg_write(victims, "memory.reap_on_kill", "0"))
		goto out;
	cg_fd = dirfd_open_opath(victims);
	if (cg_fd < 0 || oh_isolate(victims, &cpu))
		goto out;
	for (k = first; k <= last; k++) {
		st[k].kill = malloc(sizeof(long long) * OH_MAX_SAMPLES);
		st[k].ref = malloc(sizeof(long long) * OH_MAX_SAMPLES);
		st[k].ratio = malloc(sizeof(long long) * OH_MAX_SAMPLES);
		st[k].block_med = malloc(sizeof(long long) * OH_MAX_SAMPLES);
		st[k].block_fork = malloc(sizeof(long long) * OH_MAX_SAMPLES);
		if (!st[k].kill || !st[k].ref || !st[k].ratio ||
		    !st[k].block_med || !st[k].block_fork)
			goto out;
	}
	printf("# overhead on the fatal-signal path of a process outside covered cgroups\n"
	       "# method: this task, SCHED_FIFO on CPU %d, clones a child into a cgroup\n"
	       "#   without the setting, confined to that CPU, so the child cannot run,\n"
	       "#   and times kill(child, 0), then kill(child, SIGKILL): pid lookup,\n"
	       "#   permission check, __send_signal_locked() and complete_signal()\n"
	       "#   turning it into a group exit, where memory.reap_on_kill hooks in.\n"
	       "#   The child exits after the clock stopped.\n", cpu);
	if (have_reap)
		printf("#   key_on: a sibling cgroup has memory.reap_on_kill=1, so the static\n"
		       "#   branch is taken and the child's memcg read; key_off: no cgroup\n"
		       "#   has it.  Blocks of %d samples alternate between the two (the first\n"
		       "#   sample of each is dropped),\n", OH_BLOCK);
	else
		printf("#   stock: this kernel has no memory.reap_on_kill.  Blocks of %d samples\n"
		       "#   (the first of each dropped),\n", OH_BLOCK);
	printf("#   at least %d per state, until the 95%% CI of the median of\n"
	       "#   kill(SIGKILL) / kill(pid, 0) (order statistics, distribution-free)\n"
	       "#   is narrower than %.2f%% of it, %d samples or %d s.\n",
	       OH_MIN_ROUNDS, o->ci_pct, OH_MAX_SAMPLES, OH_MAX_SECONDS);
	fflush(stdout);

	for (round = 0; !done; round++) {
		for (k = first; k <= last; k++)
			if (oh_set_key(covered, k) || oh_block(cg_fd, ran, &st[k], k))
				goto out;
		if (round + 1 < OH_MIN_ROUNDS || round % 10)
			continue;
		done = true;
		for (k = first; k <= last; k++)
			done = done && oh_precise(&st[k], o->ci_pct);
		if (st[first].n + OH_BLOCK > OH_MAX_SAMPLES ||
		    now_ns() - t0 > OH_MAX_SECONDS * NSEC)
			break;
		if (progress)
			fprintf(stderr, "\r  overhead: %d samples per state\033[K",
				st[first].n);
	}
	if (progress)
		fprintf(stderr, "\r\033[K");
	if (csv)
		fprintf(csv, "%s,%s\n", "state,samples,blocks,median_ns,ci95_lo_ns,ci95_hi_ns",
			"ref_median_ns,ratio_median,ratio_ci95_lo,ratio_ci95_hi");
	for (k = first; k <= last; k++)
		oh_report(k, &st[k]);
	if (have_reap) {
		int blocks = st[KEY_ON].blocks < st[KEY_OFF].blocks ?
			     st[KEY_ON].blocks : st[KEY_OFF].blocks;

		oh_report_pairs(st[KEY_ON].block_med, st[KEY_OFF].block_med,
				blocks, "kill(SIGKILL)", "paired");
		oh_report_pairs(st[KEY_ON].block_fork, st[KEY_OFF].block_fork,
				blocks, "clone3() of the child", "paired_fork");
	}
	if (!done)
		printf("# the CI target was not reached\n");
	printf("# %.0f s\n", (now_ns() - t0) / 1e9);
	ret = 0;
out:
	if (have_reap)
		cg_write(covered, "memory.reap_on_kill", "0");
	for (k = 0; k < NR_KEY_STATES; k++) {
		free(st[k].kill);
		free(st[k].ref);
		free(st[k].ratio);
		free(st[k].block_med);
		free(st[k].block_fork);
	}
	if (cg_fd >= 0)
		close(cg_fd);
	free(victims);
	free(covered);
	return ret;
}

/* --- options ---------------------------------------------------------- */

static int parse_list(char *arg, const char * const *names, int nr,
		      bool *set)
{
	char *tok;
	int i;

	memset(set, 0, nr * sizeof(*set));
	for (tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		for (i = 0; i < nr; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == nr) {
			fprintf(stderr, "reap_bench: unknown name '%s'\n", tok);
			return -1;
		}
		set[i] = true;
	}
	return 0;
}

static const char * const cond_key[NR_CONDS] = {
	"none", "cpumax5", "cpumax1", "cpumax1s", "busycpu", "nice", "weight1",
	"weight10000", "nice19", "idle", "iomax",
};

static const char * const method_key[NR_METHODS] = {
	"plain", "mrelease", "reap",
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "victims", required_argument, NULL, 'n' },
		{ "reps", required_argument, NULL, 'r' },
		{ "conditions", required_argument, NULL, 'c' },
		{ "methods", required_argument, NULL, 'm' },
		{ "file", no_argument, NULL, 'f' },
		{ "overhead", no_argument, NULL, 'o' },
		{ "ci", required_argument, NULL, 'I' },
		{ "csv", required_argument, NULL, 'C' },
		{ "raw", required_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 't' },
		{ "workers", required_argument, NULL, 'w' },
		{ "each", required_argument, NULL, 'e' },
		{ "trace", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c, i;
	long v;
	char *end, *tok;

	memset(o, 0, sizeof(*o));
	o->workers[0] = -1;
	o->nr_workers = 1;
	o->reps = 5;
	o->ci_pct = 0.5;
	for (i = 0; i < NR_CONDS; i++)
		o->conds[i] = true;
	for (i = 0; i < NR_METHODS; i++)
		o->methods[i] = true;
	while ((c = getopt_long(argc, argv, "s:n:r:c:m:t:w:e:Tfoh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'n':
		case 'r':
		case 't':
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0 ||
			    (c == 'n' && v > MAX_VICTIMS) || (c == 'r' && v > MAX_REPS)) {
				fprintf(stderr, "reap_bench: bad value '%s' for -%c\n",
					optarg, c);
				return -1;
			}
			if (c == 's' && o->nr_sizes < 4)
				o->sizes_mib[o->nr_sizes++] = v;
			else if (c == 'n' && o->nr_counts < 8)
				o->counts[o->nr_counts++] = v;
			else if (c == 'r')
				o->reps = v;
			else if (c == 't')
				timeout_s = v;
			break;
		case 'w':
			o->nr_workers = 0;
			for (tok = strtok(optarg, ","); tok; tok = strtok(NULL, ",")) {
				v = strtol(tok, &end, 10);
				if (*end || end == tok || v < 0 || v > 64 ||
				    o->nr_workers == MAX_WORKERS) {
					fprintf(stderr, "reap_bench: bad value '%s' for -w %s\n",
						tok, "(0 to 64, at most 8 values)");
					return -1;
				}
				o->workers[o->nr_workers++] = v;
			}
			if (!o->nr_workers) {
				fprintf(stderr, "reap_bench: -w needs a value\n");
				return -1;
			}
			break;
		case 'e':
			o->each_mib = strtol(optarg, &end, 10);
			if (*end || o->each_mib <= 0) {
				fprintf(stderr, "reap_bench: bad value '%s' for -e\n",
					optarg);
				return -1;
			}
			break;
		case 'T':
			o->trace = true;
			break;
		case 'c':
			if (parse_list(optarg, cond_key, NR_CONDS, o->conds))
				return -1;
			break;
		case 'm':
			if (parse_list(optarg, method_key, NR_METHODS, o->methods))
				return -1;
			break;
		case 'f':
			o->file = true;
			break;
		case 'o':
			o->overhead = true;
			break;
		case 'I':
			o->ci_pct = strtod(optarg, &end);
			if (*end || o->ci_pct <= 0 || o->ci_pct > 100) {
				fprintf(stderr, "reap_bench: bad value '%s' for --ci\n",
					optarg);
				return -1;
			}
			break;
		case 'C':
			o->csv = optarg;
			break;
		case 'R':
			o->raw = optarg;
			break;
		case 'h':
			fputs(help_text, stdout);
			exit(0);
		default:
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "reap_bench: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!o->nr_sizes) {
		o->sizes_mib[0] = 256;
		o->sizes_mib[1] = 1024;
		o->nr_sizes = 2;
	}
	if (!o->nr_counts) {
		static const int dflt[] = { 1, 4, 16, 64 };

		memcpy(o->counts, dflt, sizeof(dflt));
		o->nr_counts = 4;
	}
	return 0;
}

static void probe_features(void)
{
	char *cg = bench_cg("victims");

	have_reap = cg_write(cg, "memory.reap_on_kill", "0") == 0;
	/* With a bad pidfd: EBADF where the syscall exists. */
	have_mrelease = syscall(__NR_process_mrelease, -1, 0) < 0 &&
			errno == EBADF;
	free(cg);
}

/* The kernel build's ID from /sys/kernel/notes, as hex into @buf. */
static void kernel_build_id(char *buf, size_t len)
{
	unsigned char notes[4096];
	ssize_t size = read_text("/sys/kernel/notes", (char *)notes, sizeof(notes));
	size_t off = 0, i;

	snprintf(buf, len, "unknown");
	while (size > 0 && off + 12 <= (size_t)size) {
		unsigned int namesz, descsz, type;
		size_t name, desc;

		memcpy(&namesz, notes + off, 4);
		memcpy(&descsz, notes + off + 4, 4);
		memcpy(&type, notes + off + 8, 4);
		name = off + 12;
		desc = name + ((namesz + 3) & ~3U);
		off = desc + ((descsz + 3) & ~3U);
		if (off > (size_t)size)
			break;
		/* NT_GNU_BUILD_ID */
		if (type != 3 || namesz != 4 || memcmp(notes + name, "GNU", 4))
			continue;
		for (i = 0; i < descsz && 2 * i + 3 <= len; i++)
			snprintf(buf + 2 * i, 3, "%02x", notes[desc + i]);
		return;
	}
}

/* What was measured, so that a figure quoted elsewhere can say so. */
static void print_system(void)
{
	char cs[64] = "?", id[64];
	struct utsname u;
	time_t now = time(NULL);
	char date[32];

	uname(&u);
	read_text("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  cs, sizeof(cs));
	cs[strcspn(cs, "\n")] = 0;
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	kernel_build_id(id, sizeof(id));
	printf("# %s; kernel %s %s, build ID %s; %ld CPUs, clocksource %s\n",
	       date, u.release, u.version, id, sysconf(_SC_NPROCESSORS_ONLN), cs);
}

int main(int argc, char **argv)
{
	struct opts o;
	int s, n, ret = 0;
	enum condition c;

	if (parse_opts(argc, argv, &o)) {
		fprintf(stderr, "reap_bench: see 'reap_bench --help'\n");
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "reap_bench: must run as root (creates cgroups, sets cpu.max)\n");
		return 2;
	}
	if (cg_find_unified_root(root, sizeof(root), NULL)) {
		fprintf(stderr, "reap_bench: cgroup v2 is not mounted\n");
		return 2;
	}
	if (cg_read_strstr(root, "cgroup.subtree_control", "memory") ||
	    cg_read_strstr(root, "cgroup.subtree_control", "cpu")) {
		fprintf(stderr, "reap_bench: enable memory and cpu in %s/cgroup.subtree_control\n",
			root);
		return 2;
	}
	if (setup_cgroups()) {
		fprintf(stderr, "reap_bench: cannot create cgroups under %s: %s\n",
			root, strerror(errno));
		return 2;
	}
	probe_features();
	progress = isatty(STDERR_FILENO);
	print_system();
	if (!have_reap && o.methods[M_REAP]) {
		printf("# memory.reap_on_kill: not in this kernel; that column is skipped\n");
		o.methods[M_REAP] = false;
	}
	if (!have_mrelease && o.methods[M_MRELEASE]) {
		printf("# process_mrelease(2): not in this kernel; that column is skipped\n");
		o.methods[M_MRELEASE] = false;
	}
	if (o.csv) {
		csv = fopen(o.csv, "w");
		if (!csv) {
			fprintf(stderr, "reap_bench: %s: %s\n", o.csv, strerror(errno));
			destroy_cgroups();
			return 2;
		}
	}

	if (o.overhead) {
		raw = o.raw ? fopen(o.raw, "w") : NULL;
		if (o.raw && !raw)
			fprintf(stderr, "reap_bench: %s: %s\n", o.raw, strerror(errno));
		if (raw)
			fprintf(raw, "state,block,sample,kill0_ns,sigkill_ns,child_ran\n");
		ret = run_overhead(&o) ? 1 : 0;
		if (raw)
			fclose(raw);
		goto out;
	}

	if (o.workers[0] >= 0 && access(REAP_WORKERS_PARAM, W_OK)) {
		fprintf(stderr, "reap_bench: -w: %s: %s\n", REAP_WORKERS_PARAM,
			strerror(errno));
		ret = 2;
		goto out;
	}
	if (o.trace && o.methods[M_REAP]) {
		static const char * const events[] = { "reap_on_kill",
							"oom/reap_split",
							NULL };

		if (!tracefs_usable() || tracefs_begin(TRACE_INSTANCE, 1024, events)) {
			fprintf(stderr, "reap_bench: -T: %s\n",
				"no tracefs instance with the reap_on_kill events");
			ret = 2;
			goto out;
		}
		tracing = true;
	}
	if (csv)
		fprintf(csv, "%s\n",
			"condition,file,size_mib,victims,method,median_ms,min_ms,max_ms,mib_per_s,runs,errors,error,timeouts,median_timed_out,workers,first_ms,wake_ms,prep_ms,unmap_ms,first_freed_ms");
	print_header(&o);
	if (o.each_mib) {
		for (n = 0; n < o.nr_counts; n++)
			run_row(o.conds[C_CPUMAX1] ? C_CPUMAX1 : C_NONE,
				o.each_mib * o.counts[n], o.counts[n], false, &o);
		goto done;
	}
	for (s = 0; s < o.nr_sizes; s++)
		for (c = 0; c < NR_CONDS; c++)
			if (o.conds[c])
				run_row(c, o.sizes_mib[s], 1, false, &o);
	if (o.file)
		for (c = 0; c < NR_CONDS; c++)
			if (o.conds[c])
				run_row(c, o.sizes_mib[0], 1, true, &o);
	for (n = 0; n < o.nr_counts; n++) {
		if (o.counts[n] == 1)
			continue;
		run_row(o.conds[C_CPUMAX1] ? C_CPUMAX1 : C_NONE,
			o.sizes_mib[0], o.counts[n], false, &o);
	}
done:
	printf("%s", notes);
out:
	if (tracing)
		tracefs_end(TRACE_INSTANCE);
	if (csv)
		fclose(csv);
	destroy_cgroups();
	return ret;
}
