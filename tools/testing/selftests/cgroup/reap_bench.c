// SPDX-License-Identifier: GPL-2.0
/*
 * reap_bench: how fast does a killed process's memory come back?
 *
 * Measures kill-to-free time and reclaim rate of victims' memory, side by
 * side, for four methods:
 *
 *   plain     SIGKILL, the victim frees its memory on its way out
 *   mrelease  SIGKILL, then process_mrelease(2) from this (unthrottled) task
 *   reap      SIGKILL with memory.reap_on_kill=1 on the victims' cgroup
 *   munmap    this task unmapping the same amount of its own memory: the
 *             limit, what the work costs when nothing slows it down
 *
 * under victim conditions (cpu.max set after the victim allocated, a busy
 * CPU, nice 19 under load, many victims killed at once by cgroup.kill).
 *
 * Timing: from just before the kill until the victims' cgroup has given
 * back 90% of the anonymous memory it held, by sampling memory.current
 * every 200us.  Each figure is the median of --reps runs, with min and max.
 *
 * Not a test: it prints figures and never fails on speed.
 */
#define _GNU_SOURCE

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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_util.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif

#define NSEC		1000000000LL
#define MAX_VICTIMS	64
#define MAX_REPS	1000

enum method { M_PLAIN, M_MRELEASE, M_REAP, M_MUNMAP, NR_METHODS };
static const char * const method_name[NR_METHODS] = {
	"plain", "mrelease", "reap_on_kill", "munmap",
};

enum condition { C_NONE, C_CPUMAX5, C_CPUMAX1, C_BUSYCPU, C_NICE, NR_CONDS };
static const char * const cond_name[NR_CONDS] = {
	"unthrottled", "cpu.max 5%", "cpu.max 1%", "busy pinned CPU",
	"nice 19 + load",
};

struct opts {
	long sizes_mib[4];
	int nr_sizes;
	int counts[8];
	int nr_counts;
	int reps;
	bool file;
	bool overhead;
	const char *csv;
	bool conds[NR_CONDS];
	bool methods[NR_METHODS];
};

static char root[PATH_MAX];
static bool have_reap, have_mrelease;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static const char help_text[] =
	"usage: reap_bench [options]\n"
	"  -s, --size MIB      victim size, repeatable (default 256 and 1024)\n"
	"  -n, --victims N     victims killed at once by cgroup.kill, repeatable\n"
	"                      (default 1, 4, 16, 64; total size is split among them)\n"
	"  -r, --reps N        repetitions per figure (default 5, at most 1000)\n"
	"  -c, --conditions L  comma list of: none,cpumax5,cpumax1,busycpu,nice\n"
	"  -m, --methods L     comma list of: plain,mrelease,reap,munmap\n"
	"  -f, --file          also run victims whose memory is a written private\n"
	"                      mapping of a file in the working directory\n"
	"  -o, --overhead      only time kill()+waitpid() of a small process in a\n"
	"                      cgroup without the setting (for kernel comparisons)\n"
	"      --csv FILE      also write every figure to FILE\n"
	"  -h, --help          this text\n"
	"Needs root, cgroup v2 with the memory and cpu controllers.  Without\n"
	"memory.reap_on_kill in the kernel, the other methods still run.\n";

/* --- cgroups ---------------------------------------------------------- */

static char *bench_cg(const char *name)
{
	char *parent = cg_name(root, "reap_bench");
	char *cg = name ? cg_name(parent, name) : parent;

	if (name)
		free(parent);
	return cg;
}

static int setup_cgroups(void)
{
	char *parent = bench_cg(NULL), *victims = bench_cg("victims");
	char *hog = bench_cg("hog");
	int ret = -1;

	cg_destroy(victims);
	cg_destroy(hog);
	cg_destroy(parent);
	if (cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory +cpu +cpuset"))
		goto out;
	if (cg_create(victims) || cg_create(hog))
		goto out;
	ret = 0;
out:
	free(parent);
	free(victims);
	free(hog);
	return ret;
}

static void cleanup_cgroups(void)
{
	char *parent = bench_cg(NULL), *victims = bench_cg("victims");
	char *hog = bench_cg("hog");

	cg_destroy(victims);
	cg_destroy(hog);
	cg_destroy(parent);
	free(parent);
	free(victims);
	free(hog);
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

static void victim(const char *cg, size_t size, int nice_level, int file_fd,
		   int ready)
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
	if (write(ready, "r", 1) != 1)
		_exit(3);
	for (;;)
		pause();
}

static int spawn_victims(struct victim_set *v, int n, size_t size,
			 int nice_level, int file_fd)
{
	char *cg = bench_cg("victims");
	int p[2], i;
	char c;

	v->n = 0;
	if (pipe(p))
		return -1;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			close(p[0]);
			victim(cg, size, nice_level, file_fd, p[1]);
		}
		v->pid[v->n] = pid;
		v->pidfd[v->n] = syscall(__NR_pidfd_open, pid, 0);
		v->n++;
		if (read(p[0], &c, 1) != 1)
			break;
	}
	close(p[0]);
	close(p[1]);
	v->anon = cg_read_key_long(cg, "memory.stat", "anon ");
	free(cg);
	return v->n == n ? 0 : -1;
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

/* Before the victims allocate: pinning and load. */
static void condition_before(enum condition c, int *nice_level)
{
	char *victims = bench_cg("victims"), *hog = bench_cg("hog");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	char cpu[24];

	*nice_level = 0;
	cg_write(victims, "cpuset.cpus", "");
	cg_write(hog, "cpuset.cpus", "");
	switch (c) {
	case C_BUSYCPU:
		/* The victims share the last CPU with a nice -20 busy loop. */
		snprintf(cpu, sizeof(cpu), "%ld", ncpu - 1);
		cg_write(victims, "cpuset.cpus", cpu);
		cg_write(hog, "cpuset.cpus", cpu);
		start_hog(hog, -20);
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

/* After they allocated, so the allocation itself is not throttled. */
static void condition_after(enum condition c)
{
	char *victims = bench_cg("victims");

	if (c == C_CPUMAX5)
		cg_write(victims, "cpu.max", "5000 100000");
	else if (c == C_CPUMAX1)
		cg_write(victims, "cpu.max", "1000 100000");
	free(victims);
}

static void condition_end(void)
{
	char *victims = bench_cg("victims");

	cg_write(victims, "cpu.max", "max");
	stop_hogs();
	free(victims);
}

/* --- one measurement -------------------------------------------------- */

/* ns until the victims' cgroup gave back 90% of its anon memory, or -1. */
static long long wait_freed(const char *cg, long current0, long anon,
			    long long t0)
{
	long target = current0 - anon / 10 * 9;
	long long deadline = t0 + 120 * NSEC;

	while (now_ns() < deadline) {
		long cur = cg_read_long(cg, "memory.current");

		if (cur >= 0 && cur <= target)
			return now_ns() - t0;
		usleep(200);
	}
	return -1;
}

static long long measure_munmap(size_t total)
{
	char *buf = mmap(NULL, total, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long long t0;

	if (buf == MAP_FAILED)
		return -1;
	madvise(buf, total, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, total);
	t0 = now_ns();
	munmap(buf, total);
	return now_ns() - t0;
}

/* Returns ns, or -1; *freed gets the bytes that came back. */
static long long measure(enum method m, enum condition c, size_t total,
			 int n, bool file, long *freed)
{
	char *cg = bench_cg("victims");
	struct victim_set v = { };
	long long t0, t = -1;
	int nice_level, file_fd = -1, i;
	long current0;

	if (m == M_MUNMAP) {
		*freed = total / 10 * 9;
		free(cg);
		return measure_munmap(total);
	}
	cg_write(cg, "memory.reap_on_kill", m == M_REAP ? "1" : "0");
	condition_before(c, &nice_level);
	if (file)
		file_fd = make_file(total / n);
	if (spawn_victims(&v, n, total / n, nice_level, file_fd))
		goto out;
	condition_after(c);
	/* A throttled victim has used up this period's quota by now. */
	usleep(200000);
	current0 = cg_read_long(cg, "memory.current");

	t0 = now_ns();
	if (n > 1)
		cg_write(cg, "cgroup.kill", "1");
	else
		syscall(__NR_pidfd_send_signal, v.pidfd[0], SIGKILL, NULL, 0);
	if (m == M_MRELEASE)
		for (i = 0; i < v.n; i++)
			syscall(__NR_process_mrelease, v.pidfd[i], 0);
	t = wait_freed(cg, current0, v.anon, t0);
	*freed = v.anon / 10 * 9;
out:
	condition_end();
	reap_victims(&v);
	if (file_fd >= 0)
		close(file_fd);
	free(cg);
	return t;
}

/* --- statistics and output -------------------------------------------- */

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

struct figure {
	long long min, median, max;	/* ns; -1 if any run failed */
	double mib_s;			/* at the median */
};

static bool progress;

static struct figure run_figure(enum method m, enum condition c,
				size_t total, int n, bool file, int reps)
{
	struct figure f = { -1, -1, -1, 0 };
	long long t[MAX_REPS];
	long freed = 0;
	int i;

	for (i = 0; i < reps; i++) {
		if (progress)
			fprintf(stderr, "\r  running: %s, %zu MiB x%d, %s, run %d/%d\033[K",
				cond_name[c], total >> 20, n, method_name[m],
				i + 1, reps);
		t[i] = measure(m, c, total, n, file, &freed);
		if (t[i] < 0)
			return f;
	}
	qsort(t, reps, sizeof(t[0]), cmp_ll);
	f.min = t[0];
	f.max = t[reps - 1];
	f.median = t[reps / 2];
	f.mib_s = f.median ? (double)freed / (1 << 20) / ((double)f.median / NSEC) : 0;
	return f;
}

static FILE *csv;

static void print_row(const char *cond, long size_mib, int n, bool file,
		      struct figure *f, const struct opts *o)
{
	char label[64];
	int m;

	snprintf(label, sizeof(label), "%s%s", cond, file ? " (file)" : "");
	if (progress)
		fprintf(stderr, "\r\033[K");
	printf("%-24s %6ld %3d", label, size_mib, n);
	for (m = 0; m < NR_METHODS; m++) {
		if (!o->methods[m])
			continue;
		if (f[m].median < 0)
			printf(" %21s", "n/a");
		else
			printf(" %7.0f %5.0f-%-5.0f%s", f[m].median / 1e6,
			       f[m].min / 1e6, f[m].max / 1e6, "");
		if (csv && f[m].median >= 0)
			fprintf(csv, "%s,%d,%ld,%d,%s,%.3f,%.3f,%.3f,%.0f\n",
				cond, file, size_mib, n, method_name[m],
				f[m].median / 1e6, f[m].min / 1e6,
				f[m].max / 1e6, f[m].mib_s);
	}
	printf("\n");
	fflush(stdout);
}

static void print_header(const struct opts *o)
{
	int m;

	printf("%-24s %6s %3s", "victim condition", "MiB", "N");
	for (m = 0; m < NR_METHODS; m++)
		if (o->methods[m])
			printf(" %21s", method_name[m]);
	printf("\n%-35s", "");
	for (m = 0; m < NR_METHODS; m++)
		if (o->methods[m])
			printf(" %21s", "ms median (min-max)");
	printf("\n");
}

static void run_row(enum condition c, long size_mib, int n, bool file,
		    const struct opts *o)
{
	struct figure f[NR_METHODS];
	int m;

	for (m = 0; m < NR_METHODS; m++) {
		f[m] = (struct figure){ -1, -1, -1, 0 };
		if (o->methods[m])
			f[m] = run_figure(m, c, (size_t)size_mib << 20, n,
					  file, o->reps);
	}
	print_row(cond_name[c], size_mib, n, file, f, o);
}

static void run_overhead(int reps)
{
	char *cg = bench_cg("victims");
	long long t[MAX_REPS];
	int i;

	cg_write(cg, "memory.reap_on_kill", "0");
	for (i = 0; i < reps; i++) {
		struct victim_set v = { };
		long long t0;

		if (spawn_victims(&v, 1, 1 << 20, 0, -1))
			break;
		t0 = now_ns();
		kill(v.pid[0], SIGKILL);
		waitpid(v.pid[0], NULL, 0);
		t[i] = now_ns() - t0;
		close(v.pidfd[0]);
	}
	qsort(t, i, sizeof(t[0]), cmp_ll);
	if (i)
		printf("%s: median %.1f us (min %.1f, max %.1f, %d runs)\n",
		       "overhead: kill()+waitpid() of a 1 MiB process, no setting",
		       t[i / 2] / 1e3, t[0] / 1e3, t[i - 1] / 1e3, i);
	if (csv && i)
		fprintf(csv, "overhead,0,1,1,kill_wait,%.4f,%.4f,%.4f,0\n",
			t[i / 2] / 1e6, t[0] / 1e6, t[i - 1] / 1e6);
	free(cg);
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
	"none", "cpumax5", "cpumax1", "busycpu", "nice",
};

static const char * const method_key[NR_METHODS] = {
	"plain", "mrelease", "reap", "munmap",
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
		{ "csv", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c, i;
	long v;
	char *end;

	memset(o, 0, sizeof(*o));
	o->reps = 5;
	for (i = 0; i < NR_CONDS; i++)
		o->conds[i] = true;
	for (i = 0; i < NR_METHODS; i++)
		o->methods[i] = true;
	while ((c = getopt_long(argc, argv, "s:n:r:c:m:foh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
		case 'n':
		case 'r':
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
		case 'C':
			o->csv = optarg;
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

int main(int argc, char **argv)
{
	struct opts o;
	int s, n;
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
			cleanup_cgroups();
			return 2;
		}
		fprintf(csv, "%s\n",
			"condition,file,size_mib,victims,method,median_ms,min_ms,max_ms,mib_per_s");
	}

	if (o.overhead) {
		run_overhead(o.reps);
		goto out;
	}

	printf("# kill-to-free: from the kill until the victims' cgroup gave back 90%% of its\n"
	       "# anonymous memory (memory.current sampled every 200us); %d runs per figure\n",
	       o.reps);
	print_header(&o);
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
out:
	if (csv)
		fclose(csv);
	cleanup_cgroups();
	return 0;
}
