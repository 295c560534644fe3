// SPDX-License-Identifier: GPL-2.0
/*
 * reap_cost: what a covered kill costs the kernel outside the victim.
 *
 * memory.reap_on_kill moves the teardown of a killed process's memory
 * into kernel workers that its cpu.max does not limit.  A user who may set
 * the file can therefore make the kernel work on its behalf by creating
 * and killing processes.  This measures how much: with many processes
 * alive (--procs, idle, sharing one address space so that they cost
 * little memory), this task forks small victims into a cgroup, each
 * touching --size KiB of anonymous memory, and kills and waits for them
 * as fast as it can, for --seconds per round, alternating rounds with
 * memory.reap_on_kill 0 and 1 on the victims' cgroup.  Per setting:
 *
 *   kills/s        kill loop iterations per second (fork, the victim
 *                  touches its memory, SIGKILL, wait)
 *   kworker_us     CPU time of all kworker threads per kill, summed from
 *                  their process CPU clocks (CLOCK_SCHED, which the kernel
 *                  lets anyone read), before and after each round
 *   cpu_us         CPU time of everything per kill (/proc/stat, all CPUs,
 *                  in ticks): this loop, the victims, the workers; what
 *                  the kernel does in total, wherever it is charged
 *   reaps          memory.events:kill_reap per kill
 *
 * With --shared, each victim first clones a CLONE_VM partner process, and
 * both are killed: the worker finds the address space shared with another
 * process, which makes it scan every process in the system and then leave
 * the memory alone; this is the most a user can make a reap scan.
 *
 * Figures are medians over --rounds rounds.  Not a test: it prints
 * figures and never fails on speed.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "reap_util.h"

#define MAX_ROUNDS	100
#define FILLER_STACK	(16 * 1024)
#define PARTNER_STACK	(64 * 1024)
/* A process CPU clock: include/linux/posix-timers_types.h */
#define CPUCLOCK_SCHED	2
#define PROCESS_CPUCLOCK(pid)	((clockid_t)((~(unsigned int)(pid) << 3) | CPUCLOCK_SCHED))

struct opts {
	int procs;
	int rounds;
	int seconds;
	long size_kib;
	bool shared;
};

/* One round of the kill loop. */
struct round {
	long kills;
	long long ns;		/* wall time of the loop */
	long long kworker_ns;	/* kworker CPU time during it */
	long long cpu_ns;	/* busy time of all CPUs during it */
	long reaps;		/* kill_reap events during it */
};

static char root[PATH_MAX];
static char *self_cg, *parent_cg, *fill_cg, *victims_cg;

/* --- the idle processes ----------------------------------------------- */

static int filler(void *unused)
{
	for (;;)
		pause();
	return 0;
}

/*
 * Start @n idle processes in fill_cg.  They share this task's address
 * space, files and signal handlers (CLONE_VM, not CLONE_THREAD: each is a
 * process of its own, which is what for_each_process() walks), so each
 * costs a task and a kernel stack, not page tables.
 */
static int start_fillers(int n)
{
	char *stacks;
	size_t len = (size_t)n * FILLER_STACK;
	int i;

	if (!n)
		return 0;
	/* The victims are forked from this task: not with these stacks. */
	stacks = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (stacks == MAP_FAILED || madvise(stacks, len, MADV_DONTFORK) ||
	    cg_enter_current(fill_cg))
		return -1;
	for (i = 0; i < n; i++) {
		if (clone(filler, stacks + (size_t)(i + 1) * FILLER_STACK,
			  CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
			  SIGCHLD, NULL) < 0) {
			fprintf(stderr, "reap_cost: clone of idle process %d: %s\n",
				i, strerror(errno));
			break;
		}
	}
	if (cg_enter_current(self_cg))
		return -1;
	return i == n ? 0 : -1;
}

static void stop_fillers(void)
{
	cg_killall(fill_cg);
	while (waitpid(-1, NULL, __WALL) > 0)
		;
}

/* --- the CPU time of kworkers ------------------------------------------ */

static long long process_cpu_ns(pid_t pid)
{
	struct timespec ts;

	if (clock_gettime(PROCESS_CPUCLOCK(pid), &ts))
		return 0;	/* gone meanwhile */
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool is_kworker(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	return !strncmp(comm, "kworker/", 8);
}

/*
 * The CPU time all kworkers have used so far.  Kernel threads are the
 * children of kthreadd (pid 2), which /proc lists without walking the
 * thousands of idle processes.  A worker that exits between two samples
 * takes its time with it; unbound workers only exit after minutes idle.
 */
static long long kworker_cpu_ns(void)
{
	long long sum = 0;
	FILE *f;
	int pid;

	f = fopen("/proc/2/task/2/children", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%d", &pid) == 1)
		if (is_kworker(pid))
			sum += process_cpu_ns(pid);
	fclose(f);
	return sum;
}

/* Busy time of all CPUs so far, from the first line of /proc/stat. */
static long long busy_cpu_ns(void)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int n;

	f = fopen("/proc/stat", "r");
	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user,
		   &nice, &sys, &idle, &iowait, &irq, &softirq, &steal);
	fclose(f);
	if (n != 8 || hz <= 0)
		return -1;
	return (long long)(user + nice + sys + irq + softirq + steal) *
	       (1000000000LL / hz);
}

/* --- victims ---------------------------------------------------------- */

static int partner(void *unused)
{
	for (;;)
		pause();
	return 0;
}

/*
 * In the child: touch @size_kib of memory, start a CLONE_VM partner if
 * asked, report its pid (or 0), and wait for the kill.
 */
static void victim(int fd, const struct opts *o)
{
	size_t size = o->size_kib * 1024;
	pid_t other = 0;
	char *mem;

	mem = mmap(NULL, size + PARTNER_STACK, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		_exit(1);
	memset(mem, 1, size);
	if (o->shared) {
		other = clone(partner, mem + size + PARTNER_STACK,
			      CLONE_VM | SIGCHLD, NULL);
		if (other < 0)
			_exit(2);
	}
	if (write(fd, &other, sizeof(other)) != sizeof(other))
		_exit(3);
	for (;;)
		pause();
}

/* Wait for both @a and @b (0: none) among this task's children. */
static int wait_both(pid_t a, pid_t b)
{
	int left = b ? 2 : 1;
	pid_t pid;

	while (left) {
		pid = waitpid(-1, NULL, 0);
		if (pid < 0)
			return -1;
		if (pid == a || pid == b)
			left--;
	}
	return 0;
}

/*
 * One victim: clone it into the victims' cgroup, wait until its memory is
 * touched, kill it (and its partner), wait for them.  The partner is the
 * victim's child: as a child subreaper, this task gets it when the victim
 * dies.
 */
static int kill_one(int cg_fd, int pipe_fd[2], const struct opts *o)
{
	pid_t pid, other;

	pid = clone_into_cgroup(cg_fd);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		victim(pipe_fd[1], o);
		_exit(0);
	}
	if (read(pipe_fd[0], &other, sizeof(other)) != sizeof(other)) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	if (kill(pid, SIGKILL) || (other && kill(other, SIGKILL)))
		return -1;
	return wait_both(pid, other);
}

static int run_round(bool reap, const struct opts *o, struct round *r)
{
	long long t0, k0, c0, deadline;
	int cg_fd, pipe_fd[2];
	long e0;

	if (cg_write(victims_cg, "memory.reap_on_kill", reap ? "1" : "0"))
		return -1;
	cg_fd = dirfd_open_opath(victims_cg);
	if (cg_fd < 0 || pipe(pipe_fd))
		return -1;
	memset(r, 0, sizeof(*r));
	e0 = cg_read_key_long(victims_cg, "memory.events", "kill_reap ");
	k0 = kworker_cpu_ns();
	c0 = busy_cpu_ns();
	t0 = now_ns();
	deadline = t0 + o->seconds * 1000000000LL;
	while (now_ns() < deadline) {
		if (kill_one(cg_fd, pipe_fd, o)) {
			fprintf(stderr, "reap_cost: a victim failed: %s\n",
				strerror(errno));
			break;
		}
		r->kills++;
	}
	r->ns = now_ns() - t0;
	/* Let the last reaps finish before the workers' time is read. */
	sleep_ms(100);
	r->kworker_ns = kworker_cpu_ns() - k0;
	r->cpu_ns = busy_cpu_ns() - c0;
	r->reaps = cg_read_key_long(victims_cg, "memory.events", "kill_reap ") - e0;
	close(pipe_fd[0]);
	close(pipe_fd[1]);
	close(cg_fd);
	return r->kills ? 0 : -1;
}

/* --- figures ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct figures {
	double kills_s, kworker_us, cpu_us, reaps;
};

static struct figures summarize(const struct round *r, int n)
{
	double a[MAX_ROUNDS], b[MAX_ROUNDS], c[MAX_ROUNDS], d[MAX_ROUNDS];
	struct figures f;
	int i;

	for (i = 0; i < n; i++) {
		a[i] = r[i].kills * 1e9 / r[i].ns;
		b[i] = r[i].kworker_ns / 1e3 / r[i].kills;
		c[i] = (double)r[i].reaps / r[i].kills;
		d[i] = r[i].cpu_ns / 1e3 / r[i].kills;
	}
	f.kills_s = median(a, n);
	f.kworker_us = median(b, n);
	f.reaps = median(c, n);
	f.cpu_us = median(d, n);
	return f;
}

/* --- setup ------------------------------------------------------------ */

/* This task's cgroup, to come back to after starting the idle processes. */
static char *own_cgroup(void)
{
	char line[PATH_MAX];
	char *cg = NULL;
	FILE *f;

	f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return NULL;
	while (!cg && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			cg = cg_name(root, line + 3);
		}
	fclose(f);
	return cg;
}

static int setup_cgroups(void)
{
	self_cg = own_cgroup();
	if (!self_cg)
		return -1;
	parent_cg = cg_name(root, "reap_cost");
	fill_cg = cg_name(parent_cg, "fill");
	victims_cg = cg_name(parent_cg, "victims");
	cg_destroy(fill_cg);
	cg_destroy(victims_cg);
	cg_destroy(parent_cg);
	if (cg_create(parent_cg) ||
	    cg_write(parent_cg, "cgroup.subtree_control", "+memory") ||
	    cg_create(fill_cg) || cg_create(victims_cg))
		return -1;
	return 0;
}

static void destroy_cgroups(void)
{
	cg_destroy(fill_cg);
	cg_destroy(victims_cg);
	cg_destroy(parent_cg);
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: reap_cost [-p PROCS] [-r ROUNDS] [-t SECONDS] [-s KIB] [--shared]\n"
		"  -p, --procs N     idle processes alive meanwhile (default 10000)\n"
		"  -r, --rounds N    rounds per setting, alternating (default 5, at most %d)\n"
		"  -t, --seconds N   length of a round (default 2)\n"
		"  -s, --size KIB    anonymous memory each victim touches (default 256)\n"
		"      --shared      each victim shares its address space with a\n"
		"                    CLONE_VM partner process (the reap scans every\n"
		"                    process, then leaves the memory alone)\n"
		"Needs root and cgroup v2 with the memory controller.\n",
		MAX_ROUNDS);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "procs", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 's' },
		{ "shared", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	char *end;
	long v;
	int c;

	*o = (struct opts){ .procs = 10000, .rounds = 5, .seconds = 2,
			    .size_kib = 256 };
	while ((c = getopt_long(argc, argv, "p:r:t:s:h", longopts, NULL)) != -1) {
		if (c == 'S') {
			o->shared = true;
			continue;
		}
		if (c == 'h' || c == '?' || !optarg) {
			print_usage();
			return -1;
		}
		errno = 0;
		v = strtol(optarg, &end, 10);
		if (errno || *end || v < 0 || v > 1000000 ||
		    (c != 'p' && v == 0) || (c == 'r' && v > MAX_ROUNDS)) {
			fprintf(stderr, "reap_cost: invalid value for -%c: %s\n",
				c, optarg);
			return -1;
		}
		switch (c) {
		case 'p':
			o->procs = v;
			break;
		case 'r':
			o->rounds = v;
			break;
		case 't':
			o->seconds = v;
			break;
		case 's':
			o->size_kib = v;
			break;
		}
	}
	if (optind < argc) {
		print_usage();
		return -1;
	}
	return 0;
}

static void print_figures(const char *name, const struct figures *f)
{
	printf("%-8s %10.0f %12.1f %10.1f %8.2f\n", name, f->kills_s,
	       f->kworker_us, f->cpu_us, f->reaps);
}

int main(int argc, char **argv)
{
	struct round off[MAX_ROUNDS], on[MAX_ROUNDS];
	struct figures f_off, f_on;
	struct opts o;
	int i, ret = 1;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (geteuid()) {
		fprintf(stderr, "reap_cost: must run as root (creates cgroups)\n");
		return KSFT_SKIP;
	}
	if (cg_find_unified_root(root, sizeof(root), NULL) ||
	    cg_read_strstr(root, "cgroup.subtree_control", "memory")) {
		fprintf(stderr, "reap_cost: needs cgroup v2 with the memory controller\n");
		return KSFT_SKIP;
	}
	if (busy_cpu_ns() < 0) {
		fprintf(stderr, "reap_cost: cannot read /proc/stat\n");
		return KSFT_SKIP;
	}
	if (kworker_cpu_ns() < 0) {
		fprintf(stderr, "reap_cost: needs CONFIG_PROC_CHILDREN\n");
		return KSFT_SKIP;
	}
	if (setup_cgroups()) {
		fprintf(stderr, "reap_cost: cannot set up cgroups under %s: %s\n",
			root, strerror(errno));
		goto out;
	}
	if (cg_read_strstr(victims_cg, "memory.reap_on_kill", "")) {
		fprintf(stderr, "reap_cost: this kernel has no memory.reap_on_kill\n");
		ret = KSFT_SKIP;
		goto out;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) || start_fillers(o.procs)) {
		fprintf(stderr, "reap_cost: cannot start %d idle processes: %s\n",
			o.procs, strerror(errno));
		goto out;
	}

	printf("# reap_cost: kernel CPU per kill of a %ld KiB process, %d idle processes alive,\n"
	       "# %d rounds of %d s per setting, alternating; victims %s\n",
	       o.size_kib, o.procs, o.rounds, o.seconds,
	       o.shared ? "share their address space with a CLONE_VM partner (2 kills per victim)"
			: "own their address space");
	for (i = 0; i < o.rounds; i++) {
		bool on_first = i % 2;

		if (run_round(on_first, &o, on_first ? &on[i] : &off[i]) ||
		    run_round(!on_first, &o, on_first ? &off[i] : &on[i])) {
			fprintf(stderr, "reap_cost: round %d failed\n", i);
			goto out;
		}
	}
	if (o.shared)
		for (i = 0; i < o.rounds; i++) {
			off[i].kills *= 2;
			on[i].kills *= 2;
		}
	f_off = summarize(off, o.rounds);
	f_on = summarize(on, o.rounds);
	printf("%-8s %10s %12s %10s %8s\n", "setting", "kills/s", "kworker_us",
	       "cpu_us", "reaps");
	print_figures("off", &f_off);
	print_figures("on", &f_on);
	printf("# on - off per kill: %+.1f us of kworker CPU, %+.1f us of CPU in all;"
	       " kills/s on/off %.2f\n", f_on.kworker_us - f_off.kworker_us,
	       f_on.cpu_us - f_off.cpu_us, f_on.kills_s / f_off.kills_s);
	ret = 0;
out:
	stop_fillers();
	if (victims_cg)
		destroy_cgroups();
	return ret;
}
