// SPDX-License-Identifier: GPL-2.0
/*
 * Stress and race tests for memory.reap_on_kill.
 *
 * Each test kills many processes in cgroups with the setting, in the ways
 * and states most likely to race with the reap worker, for a time budget
 * (-t SECONDS, default 5) with a fixed random seed (-s SEED, default 1);
 * tests named as arguments (kill_storm, ...) run alone.  Every test then
 * asserts:
 *
 *  - no hang: every victim died and was waited for before a deadline;
 *  - no lost work: every reap queued also finished (the reap_on_kill_queue
 *    and reap_on_kill_finish tracepoints, read from a tracefs instance of
 *    our own, with no event lost);
 *  - only covered cgroups queue reaps (the queue event's cgroup ID);
 *  - memory.events:kill_reap of the test's cgroup equals the number of
 *    reaps that unmapped memory;
 *  - the reaps freed at least a share, stated per test, of the anonymous
 *    memory and swap the worker found (the finish and start events): a
 *    worker that gives up without unmapping fails every test whose
 *    covered victims it sees;
 *  - nothing that was not killed lost memory (checksums).
 *
 * Kernel reports (KASAN, lockdep, WARN, hung tasks) are the harness's to
 * catch on the console.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "reap_util.h"

#define SECOND		1000000000LL
#define MS		1000000LL
#define TRACE		TRACEFS "/instances/reap_on_kill_stress"

static unsigned int seed = 1;
static int budget_s = 5;
static char self_exe[PATH_MAX];

/* ------------------------------------------------------------------ */
/* Small helpers                                                        */

/* Main thread only; threads use rand_r() on a seed of their own. */
static unsigned int rnd(unsigned int n)
{
	return n ? (unsigned int)rand_r(&seed) % n : 0;
}

static void *alloc_touched(size_t size)
{
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		_exit(2);
	memset(buf, 0x5a, size);
	return buf;
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

static int pidfd_kill(int pidfd, int sig)
{
	return syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

/* Reports readiness to spawn_in(): one byte, 'r' or a reason. */
static void ready(int fd, char c)
{
	spawn_ready(fd, &c, 1);
}

/* ------------------------------------------------------------------ */
/* The test's cgroups                                                   */

struct cgs {
	char *root;			/* reap_on_kill_stress: its memory.events */
	char *dir[32];			/* created, destroyed in reverse */
	int n;
	unsigned long long *covered;	/* IDs of covered cgroups, all ever */
	int ncovered;
};

static unsigned long long cg_id(const char *cgroup)
{
	struct stat st;

	return stat(cgroup, &st) ? 0 : st.st_ino;
}

static void note_covered(struct cgs *c, const char *cgroup)
{
	c->covered = realloc(c->covered, (c->ncovered + 1) * sizeof(*c->covered));
	if (!c->covered)
		ksft_exit_fail_msg("out of memory\n");
	c->covered[c->ncovered++] = cg_id(cgroup);
}

/* mkdir parent/name; reap sets memory.reap_on_kill; ctl enables children. */
static char *cg_add(struct cgs *c, const char *parent, const char *name,
		    bool reap, bool covered, const char *ctl)
{
	char *cg = cg_name(parent, name);

	if (!cg || c->n == ARRAY_SIZE(c->dir) || cg_create(cg)) {
		ksft_print_msg("cannot create cgroup %s\n", name);
		free(cg);
		return NULL;
	}
	c->dir[c->n++] = cg;
	if (reap && cg_write(cg, "memory.reap_on_kill", "1"))
		return NULL;
	if (ctl && cg_write(cg, "cgroup.subtree_control", (char *)ctl))
		return NULL;
	if (covered)
		note_covered(c, cg);
	return cg;
}

static int cgs_init(struct cgs *c, const char *root)
{
	memset(c, 0, sizeof(*c));
	c->root = cg_add(c, root, "reap_on_kill_stress", false, false,
			 "+memory +cpu");
	return c->root ? 0 : -1;
}

static void cgs_destroy(struct cgs *c)
{
	while (c->n > 0) {
		char *cg = c->dir[--c->n];

		cg_destroy(cg);
		free(cg);
	}
	free(c->covered);
	c->covered = NULL;
	c->ncovered = 0;
}

/* ------------------------------------------------------------------ */
/* Tracepoints: every queued reap must finish                           */

enum { EV_QUEUE, EV_START, EV_FINISH };

struct event {
	pid_t pid;
	int type;
	long long ts;			/* ns, CLOCK_MONOTONIC (trace_clock mono) */
	unsigned long long memcg_id;
	unsigned long long anon_kb;	/* start */
	unsigned long long freed_kb;	/* finish */
	unsigned long long kept_vmas;	/* finish */
	char result[24];		/* finish */
};

struct trace_log {
	struct event *ev;
	int n, cap;
	long lost;
	int bad;		/* event lines we could not parse */
};

static int trace_clear(void)
{
	return tracefs_clear(TRACE);
}

/* Every reap_on_kill event, timed on CLOCK_MONOTONIC like now_ns(). */
static int trace_start(void)
{
	static const char * const events[] = { "reap_on_kill", NULL };

	return tracefs_begin(TRACE, 16384, events);
}

static void trace_end(void)
{
	tracefs_end(TRACE);
}

/* "  comm-pid  [cpu] flags  SECONDS.MICROS: reap_on_kill_EVENT: pid=..." */
static void trace_parse_line(struct trace_log *log, const char *line)
{
	unsigned long long entries, written;
	struct event e = { };
	const char *p;

	if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu",
		   &entries, &written) == 2) {
		log->lost = written - entries;
		return;
	}
	if (strstr(line, ": reap_on_kill_queue: "))
		e.type = EV_QUEUE;
	else if (strstr(line, ": reap_on_kill_start: "))
		e.type = EV_START;
	else if (strstr(line, ": reap_on_kill_finish: "))
		e.type = EV_FINISH;
	else
		return;
	p = strstr(line, ": reap_on_kill_");
	e.ts = tracefs_line_ns(line, p);
	if (e.ts < 0)
		goto bad;
	p = strstr(p, " pid=");
	if (!p || sscanf(p, " pid=%d memcg_id=%llu", &e.pid, &e.memcg_id) != 2)
		goto bad;
	if (e.type == EV_START) {
		p = strstr(p, " anon_swap=");
		if (!p || sscanf(p, " anon_swap=%llukB", &e.anon_kb) != 1)
			goto bad;
	} else if (e.type == EV_FINISH) {
		p = strstr(p, " freed=");
		if (!p || sscanf(p, " freed=%llukB kept_vmas=%llu result=%23s",
				 &e.freed_kb, &e.kept_vmas, e.result) != 3)
			goto bad;
	}
	if (log->n == log->cap) {
		log->cap = log->cap ? 2 * log->cap : 1024;
		log->ev = realloc(log->ev, log->cap * sizeof(*log->ev));
		if (!log->ev)
			ksft_exit_fail_msg("out of memory\n");
	}
	log->ev[log->n++] = e;
	return;
bad:
	if (!log->bad++)
		ksft_print_msg("cannot parse trace line: %s", line);
}

static int trace_read(struct trace_log *log)
{
	char line[512];
	FILE *f;

	log->n = 0;
	log->lost = 0;
	log->bad = 0;
	f = fopen(TRACE "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		trace_parse_line(log, line);
	fclose(f);
	return 0;
}

static int count_events(const struct trace_log *log, int type, pid_t pid)
{
	int i, n = 0;

	for (i = 0; i < log->n; i++)
		if (log->ev[i].type == type && (!pid || log->ev[i].pid == pid))
			n++;
	return n;
}

/* The last event of a type for pid, or NULL. */
static const struct event *find_event(const struct trace_log *log, int type,
				      pid_t pid)
{
	int i;

	for (i = log->n - 1; i >= 0; i--)
		if (log->ev[i].type == type && log->ev[i].pid == pid)
			return &log->ev[i];
	return NULL;
}

/* What memory.events:kill_reap counts: a reap that unmapped something. */
static bool freed_memory(const struct event *e)
{
	return (!strcmp(e->result, "reaped") || !strcmp(e->result, "partial")) &&
	       e->freed_kb > 0;
}

/*
 * What the reaps of the running test found and freed, summed by
 * check_reaps() over its rounds (each round empties the trace); main()
 * resets it before each test.
 *
 * freed is how much the victim's anonymous memory and swap dropped while
 * the worker ran (of anon_swap, what the worker found), so it would also
 * count what the victim's own exit path unmapped meanwhile, if the victim
 * was already in exit_mmap() (while the worker holds mm_users, it cannot
 * be).  Only reaps that say they unmapped ("reaped", "partial") count:
 * a worker that gives up reports another result, or frees nothing.
 */
static struct {
	unsigned long long anon_kb, freed_kb;
	int reaps;
} totals;

/*
 * The reaps freed at least pct% of the anonymous memory and swap the worker
 * found at their start
 * (a victim that got out first leaves less, and the worker finds no mm at
 * all once it is gone: that is no failure).  A worker that unmaps nothing
 * fails here, as does one that never sees an address space.
 */
static int check_freed(const char *what, int pct)
{
	unsigned long long rss = totals.anon_kb, freed = totals.freed_kb;

	ksft_print_msg("%s: %d reaps freed %llu of %llu kB anon+swap (%llu%%, want >= %d%%)\n",
		       what, totals.reaps, freed, rss, rss ? 100 * freed / rss : 0,
		       pct);
	if (!rss || 100 * freed < pct * rss) {
		ksft_print_msg("%s: the reaps freed too little\n", what);
		return -1;
	}
	return 0;
}

/*
 * The invariants every test ends with.  Waits up to 10 s for queued reaps
 * to finish: the worker may still run after the victim was waited for.
 */
static int check_reaps(struct cgs *c, struct trace_log *log, bool report)
{
	long long deadline = now_ns() + 10 * SECOND;
	int i, j, queued, finished, freed = 0, partial = 0;
	long kill_reap;

	do {
		if (trace_read(log))
			return ksft_print_msg("cannot read %s/trace\n", TRACE), -1;
		queued = count_events(log, EV_QUEUE, 0);
		finished = count_events(log, EV_FINISH, 0);
	} while (queued != finished && now_ns() < deadline && (sleep_us(10000), 1));

	for (i = 0; i < log->n; i++) {
		struct event *e = &log->ev[i];

		if (e->type == EV_START) {
			totals.anon_kb += e->anon_kb;
			continue;
		}
		if (e->type == EV_FINISH) {
			totals.reaps++;
			if (freed_memory(e))
				totals.freed_kb += e->freed_kb;
			freed += freed_memory(e);
			partial += !strcmp(e->result, "partial");
			continue;
		}
		for (j = 0; j < c->ncovered; j++)
			if (c->covered[j] == e->memcg_id)
				break;
		if (j == c->ncovered) {
			ksft_print_msg("pid %d queued from cgroup %llu, which is not covered\n",
				       e->pid, e->memcg_id);
			return -1;
		}
	}
	kill_reap = cg_read_key_long(c->root, "memory.events", "kill_reap ");
	if (report || log->lost || queued != finished || kill_reap != freed)
		ksft_print_msg("reaps: %d queued, %d done, %d freed (%d partly); kill_reap %ld\n",
			       queued, finished, freed, partial, kill_reap);
	if (log->lost) {
		ksft_print_msg("the trace lost %ld events\n", log->lost);
		return -1;
	}
	if (log->bad) {
		ksft_print_msg("%d reap_on_kill trace lines did not parse\n",
			       log->bad);
		return -1;
	}
	if (queued != finished) {
		ksft_print_msg("%d reaps queued, %d finished\n", queued, finished);
		return -1;
	}
	if (kill_reap != freed) {
		ksft_print_msg("memory.events:kill_reap %ld, reaps that freed memory %d\n",
			       kill_reap, freed);
		return -1;
	}
	return 0;
}

/* Exactly one reap queued and finished for pid (at most one if racy). */
static int check_one_reap(const struct trace_log *log, pid_t pid, bool racy,
			  const char *what)
{
	int q = count_events(log, EV_QUEUE, pid);
	int f = count_events(log, EV_FINISH, pid);

	if ((q == 1 || (racy && q == 0)) && f == q)
		return 0;
	ksft_print_msg("%s victim %d: %d reaps queued, %d finished, want %s1\n",
		       what, pid, q, f, racy ? "at most " : "");
	return -1;
}

/* Poll the trace until the reap of each pid finished; 0 if they all did. */
static int wait_reaps_finished(struct trace_log *log, const pid_t *pids, int n)
{
	long long deadline = now_ns() + 10 * SECOND;
	int i;

	do {
		if (trace_read(log))
			return -1;
		for (i = 0; i < n; i++)
			if (!find_event(log, EV_FINISH, pids[i]))
				break;
		if (i == n)
			return 0;
		sleep_us(2000);
	} while (now_ns() < deadline);
	ksft_print_msg("victim %d: no reap finished within 10 s\n", pids[i]);
	return -1;
}

/* ------------------------------------------------------------------ */
/* Sentinels: never killed, their memory must stay intact               */

#define SENTINEL_SIZE	MB(4)

static void sentinel_main(int fd)
{
	uint64_t *buf = mmap(NULL, SENTINEL_SIZE, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sigset_t set;
	int sig;

	if (buf == MAP_FAILED)
		_exit(2);
	fill_pattern(buf, SENTINEL_SIZE);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ready(fd, 'r');
	sigwait(&set, &sig);
	_exit(pattern_intact(buf, SENTINEL_SIZE) ? 0 : 1);
}

/* A child in cgroup that runs fn; *reply, if given, gets its ready() byte. */
static pid_t spawn_in(const char *cgroup, void (*fn)(int fd, void *arg),
		      void *arg, char *reply)
{
	char c;

	return spawn_in_cgroup(cgroup, fn, arg, reply ? reply : &c, 1);
}

static void sentinel_fn(int fd, void *arg)
{
	sentinel_main(fd);
}

/* Ask the sentinels to check their memory; 0 if all of them say so. */
static int sentinels_check(const pid_t *pids, int n)
{
	int i, status, bad = 0;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGUSR1);
	for (i = 0; i < n; i++) {
		if (waitpid_until(pids[i], &status, now_ns() + 30 * SECOND) ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			ksft_print_msg("sentinel %d: memory changed or it died (status %#x)\n",
				       pids[i], status);
			bad++;
		}
	}
	return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Kill storm                                                           */

enum { L_COV_AX, L_COV_AY, L_COV_B, L_PLAIN_X, L_PLAIN_Y, NLEAVES };

#define STORM_SLOTS	48	/* victims alive at once, at most */

/*
 * Storm victims run unthrottled and race the worker to their exit, and the
 * OOM reaper races it too: a reap that comes second finds less RSS or none,
 * or ends "done_elsewhere" having freed nothing.  Measured with seeds 1-3:
 * 100% of the RSS found.  Half leaves room for unlucky races; a worker
 * that unmaps nothing frees next to 0%.
 */
#define STORM_FREED_PCT	50

struct storm {
	pthread_mutex_t lock;
	pid_t pid[STORM_SLOTS];
	int pidfd[STORM_SLOTS];
	bool oom_bait[STORM_SLOTS];	/* left to the OOM killer */
	char *leaves[NLEAVES];
	bool stop;
	long kills, terms, cgkills, spawned, migrated, rmdirs;
};

struct victim_spec {
	size_t size;
	int threads;
	bool grandchild;
	long lifetime_ms;	/* exits by itself after that, 0: never */
	unsigned int seed;
};

static void *toucher(void *arg)
{
	const struct victim_spec *s = arg;
	unsigned int r = s->seed;
	char *buf = alloc_touched(MB(1) / 4);

	for (;;) {
		buf[rand_r(&r) % (MB(1) / 4)]++;
		if (rand_r(&r) % 64 == 0)
			return NULL;	/* threads come and go */
		sleep_us(rand_r(&r) % 2000);
	}
}

/* Not waited for: it may be killed before it even entered its cgroup. */
static void storm_victim(struct victim_spec *s)
{
	long long end = now_ns() + s->lifetime_ms * MS;
	pthread_t th;
	char *buf;
	int i;

	buf = alloc_touched(s->size);
	for (i = 0; i < s->threads; i++)
		pthread_create(&th, NULL, toucher, s);
	if (s->grandchild && fork() == 0) {
		alloc_touched(MB(1));
		sleep_us(rand_r(&s->seed) % 20000);
		_exit(0);
	}
	for (;;) {
		buf[rand_r(&s->seed) % s->size]++;
		if (s->lifetime_ms && now_ns() > end)
			_exit(0);
		sleep_us(rand_r(&s->seed) % 5000);
	}
}

static void *storm_killer(void *arg)
{
	struct storm *st = arg;
	unsigned int r = seed ^ 0x6b696c6c;

	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED)) {
		int i = rand_r(&r) % STORM_SLOTS, sig;

		sig = rand_r(&r) % 4 ? SIGKILL : SIGTERM;
		pthread_mutex_lock(&st->lock);
		if (st->pidfd[i] >= 0 && !st->oom_bait[i] &&
		    pidfd_kill(st->pidfd[i], sig) == 0) {
			if (sig == SIGKILL)
				st->kills++;
			else
				st->terms++;
		}
		pthread_mutex_unlock(&st->lock);
		sleep_us(rand_r(&r) % 3000);
	}
	return NULL;
}

static void *storm_cgroup_killer(void *arg)
{
	struct storm *st = arg;
	unsigned int r = seed ^ 0x63676b6c;

	while (!__atomic_load_n(&st->stop, __ATOMIC_RELAXED)) {
		/* Any leaf but the small one, where the OOM killer works. */
		int l = rand_r(&r) % (NLEAVES - 1);

		if (l >= L_COV_B)
			l++;

		if (!cg_write(st->leaves[l], "cgroup.kill", "1"))
			__atomic_add_fetch(&st->cgkills, 1, __ATOMIC_RELAXED);
		sleep_us(20000 + rand_r(&r) % 60000);
	}
	return NULL;
}

/* Reap whatever died; frees its slot.  Returns the number reaped. */
static int storm_reap(struct storm *st, int *live)
{
	int status, i, n = 0;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		n++;
		pthread_mutex_lock(&st->lock);
		for (i = 0; i < STORM_SLOTS; i++) {
			if (st->pid[i] != pid)
				continue;
			close(st->pidfd[i]);
			st->pidfd[i] = -1;
			st->pid[i] = 0;
			st->oom_bait[i] = false;
			(*live)--;
			break;
		}
		pthread_mutex_unlock(&st->lock);
	}
	return n;
}

/*
 * A victim in a random leaf, or, if l is given, one there that no one but
 * the OOM killer kills (a slow kernel would let the killers win otherwise).
 */
static void storm_spawn(struct storm *st, int *live, int slot, int l)
{
	struct victim_spec s = {
		.size = MB(1) / 4 + rnd(16) * MB(1) / 4,
		.threads = rnd(3),
		.grandchild = rnd(4) == 0,
		.lifetime_ms = rnd(4) == 0 ? rnd(300) : 0,
		.seed = rand_r(&seed),
	};
	bool chosen = l >= 0;
	int fd;
	pid_t pid;

	if (!chosen)
		l = rnd(NLEAVES);
	/* One or two in the small cgroup have the OOM killer join in. */
	if (l == L_COV_B)
		s.size = chosen || rnd(2) ? MB(12) : MB(6);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		if (cg_enter_current(st->leaves[l]))
			_exit(1);
		storm_victim(&s);
	}
	fd = pidfd_open(pid);
	pthread_mutex_lock(&st->lock);
	st->pid[slot] = pid;
	st->pidfd[slot] = fd;
	st->oom_bait[slot] = chosen;
	pthread_mutex_unlock(&st->lock);
	st->spawned++;
	(*live)++;
}

/* Empty cov/a/y, rmdir it and create it anew (a new cgroup ID). */
static void storm_recycle(struct storm *st, struct cgs *c, int *live)
{
	char *cg = st->leaves[L_COV_AY];
	long long end = now_ns() + 200 * MS;
	char pid[16];
	int i;

	cg_write(cg, "cgroup.kill", "1");
	while (cg_read_strstr(cg, "cgroup.events", "populated 0") &&
	       now_ns() < end) {
		storm_reap(st, live);
		sleep_us(1000);
	}
	if (rmdir(cg))
		return;
	st->rmdirs++;
	if (mkdir(cg, 0755))
		ksft_print_msg("cannot recreate %s: %s\n", cg, strerror(errno));
	note_covered(c, cg);
	/* Migrate a victim right into the new cgroup. */
	for (i = 0; i < STORM_SLOTS; i++) {
		if (!st->pid[i] || st->oom_bait[i])
			continue;
		snprintf(pid, sizeof(pid), "%d", st->pid[i]);
		cg_write(cg, "cgroup.procs", pid);
		break;
	}
}

static int test_kill_storm(const char *root)
{
	const int nsentinels = 4;
	struct storm *st;
	struct trace_log log = { };
	struct cgs c;
	pthread_t killer, cgkiller;
	pid_t sentinel[4];
	char *cov, *cov_a, *plain, *sentinels;
	long long end, recycle;
	int i, live = 0, ret = KSFT_FAIL;
	long oom_kills;

	st = calloc(1, sizeof(*st));
	if (!st)
		return KSFT_FAIL;
	pthread_mutex_init(&st->lock, NULL);
	for (i = 0; i < STORM_SLOTS; i++)
		st->pidfd[i] = -1;
	if (cgs_init(&c, root))
		goto out;
	cov = cg_add(&c, c.root, "cov", true, true, "+memory +cpu");
	cov_a = cov ? cg_add(&c, cov, "a", false, true, "+memory +cpu") : NULL;
	plain = cg_add(&c, c.root, "plain", false, false, "+memory +cpu");
	if (!cov_a || !plain)
		goto out;
	st->leaves[L_COV_AX] = cg_add(&c, cov_a, "x", false, true, NULL);
	st->leaves[L_COV_AY] = cg_add(&c, cov_a, "y", false, true, NULL);
	st->leaves[L_COV_B] = cg_add(&c, cov, "b", false, true, NULL);
	st->leaves[L_PLAIN_X] = cg_add(&c, plain, "x", false, false, NULL);
	st->leaves[L_PLAIN_Y] = cg_add(&c, plain, "y", false, false, NULL);
	sentinels = cg_add(&c, plain, "sentinels", false, false, NULL);
	for (i = 0; i < NLEAVES; i++)
		if (!st->leaves[i])
			goto out;
	if (!sentinels || cg_write(st->leaves[L_COV_B], "memory.max", "10M"))
		goto out;
	for (i = 0; i < nsentinels; i++) {
		sentinel[i] = spawn_in(sentinels, sentinel_fn, NULL, NULL);
		if (sentinel[i] < 0)
			goto out;
	}
	if (trace_start())
		goto out;

	pthread_create(&killer, NULL, storm_killer, st);
	pthread_create(&cgkiller, NULL, storm_cgroup_killer, st);
	end = now_ns() + budget_s * SECOND;
	recycle = now_ns() + SECOND / 2;
	while (now_ns() < end) {
		int slot = rnd(STORM_SLOTS);

		if (!st->pid[slot])
			storm_spawn(st, &live, slot, -1);
		slot = rnd(STORM_SLOTS);
		if (st->pid[slot] && !st->oom_bait[slot] && rnd(2)) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", st->pid[slot]);
			if (!cg_write(st->leaves[rnd(NLEAVES)], "cgroup.procs", pid))
				st->migrated++;
		}
		if (now_ns() > recycle) {
			storm_recycle(st, &c, &live);
			recycle = now_ns() + SECOND / 2;
			/* Bigger than memory.max: an OOM kill. */
			slot = rnd(STORM_SLOTS);
			if (!st->pid[slot])
				storm_spawn(st, &live, slot, L_COV_B);
		}
		if (!storm_reap(st, &live) && live == STORM_SLOTS)
			sleep_us(1000);
	}
	__atomic_store_n(&st->stop, true, __ATOMIC_RELAXED);
	pthread_join(killer, NULL);
	pthread_join(cgkiller, NULL);

	/* Everything but the sentinels dies now, and must be waited for. */
	end = now_ns() + 30 * SECOND;
	while (live > 0 && now_ns() < end) {
		cg_write(cov, "cgroup.kill", "1");
		cg_write(st->leaves[L_PLAIN_X], "cgroup.kill", "1");
		cg_write(st->leaves[L_PLAIN_Y], "cgroup.kill", "1");
		storm_reap(st, &live);
		sleep_us(5000);
	}
	oom_kills = cg_read_key_long(st->leaves[L_COV_B], "memory.events", "oom_kill ");
	ksft_print_msg("storm: %ld victims; by pidfd %ld SIGKILL, %ld SIGTERM\n",
		       st->spawned, st->kills, st->terms);
	ksft_print_msg("storm: %ld cgroup.kill, %ld OOM kills, %ld migrations, %ld rmdir+mkdir\n",
		       st->cgkills, oom_kills, st->migrated, st->rmdirs);
	if (live > 0) {
		ksft_print_msg("%d victims still alive 30 s after the storm\n", live);
		goto out;
	}
	if (sentinels_check(sentinel, nsentinels) || check_reaps(&c, &log, true) ||
	    check_freed("storm", STORM_FREED_PCT))
		goto out;
	if (!st->spawned || !st->kills || !st->cgkills || oom_kills <= 0 ||
	    !count_events(&log, EV_QUEUE, 0)) {
		ksft_print_msg("the storm did not exercise every kind of kill\n");
		goto out;
	}
	ret = KSFT_PASS;
out:
	trace_end();
	cgs_destroy(&c);
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
	free(log.ev);
	free(st);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Fatal signals sent from hard-IRQ context: itimers and POSIX timers   */

struct timer_spec {
	bool posix;
	bool busy;
	bool periodic;
	long us;
};

static void timer_victim(int fd, void *arg)
{
	const struct timer_spec *t = arg;
	struct itimerval it = { };
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
				.sigev_signo = SIGUSR1 };
	struct itimerspec its = { };
	char *buf = alloc_touched(MB(1));
	timer_t timer;
	unsigned long i = 0;

	ready(fd, 'r');
	if (t->posix) {
		its.it_value.tv_nsec = t->us * 1000;
		if (t->periodic)
			its.it_interval.tv_nsec = 50000;
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer) ||
		    timer_settime(timer, 0, &its, NULL))
			_exit(4);
	} else {
		it.it_value.tv_usec = t->us;
		if (t->periodic)
			it.it_interval.tv_usec = 50;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	for (;;) {
		if (t->busy)	/* atomic: the compiler keeps the stores */
			__atomic_fetch_add(&buf[i++ % MB(1)], 1, __ATOMIC_RELAXED);
		else
			pause();
	}
}

/*
 * Timer victims die unthrottled, and a signal from an interrupt cannot pin
 * the mm: the worker may find the victim in exit_mmap(), unmapping beside
 * it, or past it.  Measured with seeds 1-3: 100%; half, as for the storm.
 */
#define TIMERS_FREED_PCT	50

static int test_irq_signals(const char *root)
{
	enum { BATCH = 16 };
	struct trace_log log = { };
	struct timer_spec spec[BATCH];
	pid_t pid[BATCH];
	struct cgs c;
	char *leaf;
	long long end;
	int i, status, ret = KSFT_FAIL, victims = 0;

	if (cgs_init(&c, root))
		goto out;
	leaf = cg_add(&c, c.root, "timers", true, true, NULL);
	if (!leaf || trace_start())
		goto out;
	end = now_ns() + budget_s * SECOND;
	while (now_ns() < end) {
		for (i = 0; i < BATCH; i++) {
			spec[i] = (struct timer_spec){
				.posix = rnd(2), .busy = rnd(2),
				.periodic = rnd(3) == 0,
				.us = 50 + rnd(2000),
			};
			pid[i] = spawn_in(leaf, timer_victim, &spec[i], NULL);
			if (pid[i] < 0)
				goto out;
		}
		for (i = 0; i < BATCH; i++) {
			int want = spec[i].posix ? SIGUSR1 : SIGALRM;

			if (waitpid_until(pid[i], &status, now_ns() + 30 * SECOND)) {
				ksft_print_msg("timer victim %d did not die\n", pid[i]);
				goto out;
			}
			if (!WIFSIGNALED(status) || WTERMSIG(status) != want) {
				ksft_print_msg("timer victim %d: status %#x, want death by %s\n",
					       pid[i], status, strsignal(want));
				goto out;
			}
			victims++;
		}
		if (check_reaps(&c, &log, false))
			goto out;
		for (i = 0; i < BATCH; i++)
			if (check_one_reap(&log, pid[i], false, "timer"))
				goto out;
		/* A fresh trace and cgroup, so that no pid is seen twice. */
		trace_clear();
		cgs_destroy(&c);
		if (cgs_init(&c, root))
			goto out;
		leaf = cg_add(&c, c.root, "timers", true, true, NULL);
		if (!leaf)
			goto out;
	}
	ksft_print_msg("%d victims killed by their own itimer or POSIX timer\n",
		       victims);
	if (victims && !check_freed("timers", TIMERS_FREED_PCT))
		ret = KSFT_PASS;
out:
	trace_end();
	cgs_destroy(&c);
	free(log.ev);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Victims in awkward states                                            */

enum awkward {
	A_PLAIN, A_PTRACED, A_STOPPED, A_FROZEN, A_EXEC, A_FORK, A_OWN_EXIT,
	A_MMAP_WRITER, A_IO_URING, A_MLOCK, A_HUGETLB, NR_AWKWARD
};

static const char * const awkward_name[NR_AWKWARD] = {
	"running", "ptrace-stopped", "SIGSTOPped", "in a frozen cgroup",
	"mid-exec", "mid-fork", "exiting on its own",
	"with a thread holding mmap_lock for write", "with io_uring fixed buffers",
	"with mlocked memory", "with hugetlb pages",
};

struct awkward_arg {
	enum awkward state;
	unsigned int seed;
};

static void *mmap_writer(void *arg)
{
	for (;;) {
		char *p = mmap(NULL, MB(1), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			continue;
		p[0] = 1;
		mprotect(p, MB(1), PROT_READ);
		munmap(p, MB(1));
	}
	return NULL;
}

/* Registers two fixed buffers; false if io_uring is not available. */
static bool io_uring_buffers(char *buf, size_t size)
{
	struct io_uring_params params = { };
	struct iovec iov[2] = {
		{ buf, size / 2 }, { buf + size / 2, size / 2 },
	};
	int fd = syscall(__NR_io_uring_setup, 4, &params);

	return fd >= 0 &&
	       syscall(__NR_io_uring_register, fd, IORING_REGISTER_BUFFERS,
		       iov, 2) == 0;
}

static void awkward_victim(int fd, void *arg)
{
	struct awkward_arg *a = arg;
	const size_t size = MB(4);
	char *buf = alloc_touched(size), *huge;
	pthread_t th;
	pid_t pid;

	switch (a->state) {
	case A_EXEC:
		ready(fd, 'r');
		execl(self_exe, self_exe, "--exec-loop", NULL);
		_exit(5);
	case A_FORK:
		ready(fd, 'r');
		for (;;) {
			pid = fork();
			if (pid == 0) {
				buf[0]++;
				_exit(0);
			}
			if (pid > 0)
				waitpid(pid, NULL, 0);
		}
	case A_OWN_EXIT:
		ready(fd, 'r');
		sleep_us(rand_r(&a->seed) % 5000);
		_exit(0);
	case A_MMAP_WRITER:
		pthread_create(&th, NULL, mmap_writer, NULL);
		break;
	case A_IO_URING:
		if (!io_uring_buffers(buf, size))
			ready(fd, 'u');
		break;
	case A_MLOCK:
		if (mlock(buf, size))
			ready(fd, 'u');
		break;
	case A_HUGETLB:
		huge = mmap(NULL, MB(4), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (huge == MAP_FAILED)
			ready(fd, 'u');
		else
			memset(huge, 1, MB(4));
		break;
	default:
		break;
	}
	if (fcntl(fd, F_GETFD) >= 0)
		ready(fd, 'r');
	for (;;)
		pause();
}

/* Put the victim in its state before the kill; false if that failed. */
static bool awkward_prepare(enum awkward state, pid_t pid, const char *frozen)
{
	long long end = now_ns() + 10 * SECOND;
	int status;

	switch (state) {
	case A_PTRACED:
		return !ptrace(PTRACE_SEIZE, pid, NULL, NULL) &&
		       !ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) &&
		       waitpid(pid, &status, __WALL) == pid && WIFSTOPPED(status);
	case A_STOPPED:
		return !kill(pid, SIGSTOP) &&
		       waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status);
	case A_FROZEN:
		if (cg_write(frozen, "cgroup.freeze", "1"))
			return false;
		while (cg_read_strstr(frozen, "cgroup.events", "frozen 1")) {
			if (now_ns() > end)
				return false;
			sleep_us(1000);
		}
		return true;
	case A_EXEC:
	case A_FORK:
	case A_OWN_EXIT:
		sleep_us(rnd(20000));
		return true;
	default:
		return true;
	}
}

static int hugetlb_pages(int n)
{
	char buf[32];
	int old;

	if (read_text("/proc/sys/vm/nr_hugepages", buf, sizeof(buf)) <= 0)
		return -1;
	old = atoi(buf);
	snprintf(buf, sizeof(buf), "%d", n);
	write_text("/proc/sys/vm/nr_hugepages", buf, strlen(buf));
	return old;
}

static int awkward_cgroups(struct cgs *c, const char *root, char **leaf,
			   char **frozen)
{
	char *cov;

	if (cgs_init(c, root))
		return -1;
	cov = cg_add(c, c->root, "cov", true, true, "+memory +cpu");
	*leaf = cov ? cg_add(c, cov, "v", false, true, NULL) : NULL;
	*frozen = cov ? cg_add(c, cov, "frozen", false, true, NULL) : NULL;
	return *leaf && *frozen ? 0 : -1;
}

/*
 * Some victims legitimately leave the worker little: one exits on its own,
 * one has a thread that may hold mmap_lock for write while the worker
 * waits (the victim may free much itself meanwhile), hugetlb pages are not
 * RSS and stay for exit_mmap().  Measured with seeds 1-3: 99-100%; half.
 */
#define AWKWARD_FREED_PCT	50

static int test_awkward_states(const char *root)
{
	enum { BATCH = 22 };
	int done[NR_AWKWARD] = { }, unavailable[NR_AWKWARD] = { };
	struct awkward_arg arg[BATCH];
	struct trace_log log = { };
	pid_t pid[BATCH];
	char *leaf, *frozen, reply, line[1024];
	int i, n, status, ret = KSFT_FAIL, old_huge, round = 0;
	long long end;
	struct cgs c;

	old_huge = hugetlb_pages(8);
	if (awkward_cgroups(&c, root, &leaf, &frozen) || trace_start())
		goto out;
	end = now_ns() + budget_s * SECOND;
	while (now_ns() < end) {
		for (n = 0; n < BATCH; n++) {
			enum awkward s = (round * BATCH + n) % NR_AWKWARD;

			arg[n] = (struct awkward_arg){ s, rand_r(&seed) };
			pid[n] = spawn_in(s == A_FROZEN ? frozen : leaf,
					  awkward_victim, &arg[n], &reply);
			if (pid[n] < 0)
				goto out;
			if (reply == 'u')
				unavailable[s]++;
			if (!awkward_prepare(s, pid[n], frozen)) {
				ksft_print_msg("could not get victim %d %s\n",
					       pid[n], awkward_name[s]);
				goto out;
			}
			kill(pid[n], SIGKILL);
			if (waitpid_until(pid[n], &status, now_ns() + 30 * SECOND)) {
				ksft_print_msg("victim %d %s did not die\n",
					       pid[n], awkward_name[s]);
				goto out;
			}
			if (s == A_FROZEN)
				cg_write(frozen, "cgroup.freeze", "0");
			if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) &&
			    !(s == A_OWN_EXIT && WIFEXITED(status))) {
				ksft_print_msg("victim %d %s: status %#x\n",
					       pid[n], awkward_name[s], status);
				goto out;
			}
			done[s]++;
		}
		/* Orphans of mid-fork victims come to us, the subreaper. */
		while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
			;
		if (check_reaps(&c, &log, false))
			goto out;
		for (i = 0; i < n; i++)
			if (check_one_reap(&log, pid[i], arg[i].state == A_OWN_EXIT,
					   awkward_name[arg[i].state]))
				goto out;
		trace_clear();
		cgs_destroy(&c);
		if (awkward_cgroups(&c, root, &leaf, &frozen))
			goto out;
		round++;
	}
	n = 0;
	for (i = 0; i < NR_AWKWARD; i++)
		n += snprintf(line + n, sizeof(line) - n, "%s%s %d%s", i ? ", " : "",
			      awkward_name[i], done[i],
			      unavailable[i] == done[i] && done[i] ? " (unavailable here)" :
			      unavailable[i] ? " (partly unavailable)" : "");
	ksft_print_msg("victims killed: %s\n", line);
	if (!check_freed("awkward", AWKWARD_FREED_PCT))
		ret = KSFT_PASS;
out:
	trace_end();
	cgs_destroy(&c);
	if (old_huge >= 0)
		hugetlb_pages(old_huge);
	free(log.ev);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Readers of the victim's memory while it is reaped                    */

enum { R_GOOD, R_ERROR, R_GARBAGE };

/* When each read started and how it went: the last READ_RECS of a round. */
#define READ_RECS	65536

struct read_rec {
	long long start;
	int outcome;
};

struct reader {
	pid_t pid;
	uint64_t *base;
	size_t size;
	int kind;		/* 0 process_vm_readv, 1 /proc/pid/mem, 2 smaps, 3 cmdline */
	int memfd;
	const char *cmdline;
	size_t cmdline_len;
	bool stop;
	long good, errors, garbage;
	unsigned int seed;
	struct read_rec *rec;	/* a ring of READ_RECS */
	long nrec;		/* reads recorded, ever: the ring wraps */
};

static int reader_one(struct reader *r)
{
	uint64_t chunk[512], *at;
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	at = r->base + (rand_r(&r->seed) % (r->size / sizeof(chunk))) * 512;
	switch (r->kind) {
	case 0:
	case 1:
		if (r->kind == 0) {
			struct iovec local = { chunk, sizeof(chunk) };
			struct iovec remote = { at, sizeof(chunk) };

			n = process_vm_readv(r->pid, &local, 1, &remote, 1, 0);
		} else {
			n = pread(r->memfd, chunk, sizeof(chunk), (uintptr_t)at);
		}
		if (n != sizeof(chunk))
			return R_ERROR;
		if (pattern_bad_word(chunk, at, sizeof(chunk)) >= 0)
			return R_GARBAGE;
		return R_GOOD;
	default:
		snprintf(path, sizeof(path), "/proc/%d/%s", r->pid,
			 r->kind == 2 ? "smaps" : "cmdline");
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return R_ERROR;
		n = read(fd, buf, sizeof(buf));
		if (r->kind == 2)
			while (n > 0)
				n = read(fd, buf, sizeof(buf));
		close(fd);
		if (n < 0 || (r->kind == 3 && n == 0))
			return R_ERROR;
		if (r->kind == 3 && ((size_t)n != r->cmdline_len ||
				     memcmp(buf, r->cmdline, n)))
			return R_GARBAGE;
		return R_GOOD;
	}
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		struct read_rec *rec = &r->rec[r->nrec++ % READ_RECS];

		rec->start = now_ns();
		rec->outcome = reader_one(r);
		if (rec->outcome == R_GOOD)	/* the main thread waits for one */
			__atomic_add_fetch(&r->good, 1, __ATOMIC_RELAXED);
		r->errors += rec->outcome == R_ERROR;
		r->garbage += rec->outcome == R_GARBAGE;
	}
	return NULL;
}

static void pattern_victim(int fd, void *arg)
{
	size_t size = *(size_t *)arg;
	uint64_t *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long spins = 0;

	if (buf == MAP_FAILED)
		_exit(2);
	fill_pattern(buf, size);
	/* The parent learns where the pattern is. */
	spawn_ready(fd, &buf, sizeof(buf));
	/* Runnable, so that cpu.max throttles us: the exit path crawls. */
	for (;;)
		__atomic_fetch_add(&spins, 1, __ATOMIC_RELAXED);
}

/* Like spawn_in(), but reads the victim's buffer address. */
static pid_t spawn_pattern_victim(const char *cgroup, size_t size, void **base)
{
	return spawn_in_cgroup(cgroup, pattern_victim, &size, base,
			       sizeof(*base));
}

static const char * const reader_name[] = {
	"process_vm_readv", "/proc/pid/mem", "/proc/pid/smaps", "/proc/pid/cmdline",
};

static void stop_readers(struct reader *r, pthread_t *th)
{
	int i;

	for (i = 0; i < 4; i++) {
		__atomic_store_n(&r[i].stop, true, __ATOMIC_RELAXED);
		pthread_join(th[i], NULL);
		close(r[i].memfd);
	}
}

/* Reads of each kind that raced with the reap, by outcome */
struct overlap {
	long n[4], good[4], errors[4];
};

static bool every_reader_overlapped(const struct overlap *o)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!o->n[i])
			return false;
	return true;
}

/*
 * Count the reads that started after the reap was queued, that is inside
 * kill(), and before it finished.  Trace timestamps are whole microseconds,
 * rounded down: a read must start a microsecond after the queue event's,
 * and before the finish event's, to be certain to fall in between.
 */
static int count_overlap(const struct trace_log *log, pid_t pid,
			 const struct reader *r, struct overlap *o)
{
	const struct event *q = find_event(log, EV_QUEUE, pid);
	const struct event *f = find_event(log, EV_FINISH, pid);
	long i, first;
	int k;

	if (!q || !f)
		return -1;
	for (k = 0; k < 4; k++) {
		first = r[k].nrec > READ_RECS ? r[k].nrec - READ_RECS : 0;
		for (i = first; i < r[k].nrec; i++) {
			const struct read_rec *rec = &r[k].rec[i % READ_RECS];

			if (rec->start < q->ts + 1000 || rec->start >= f->ts)
				continue;
			o->n[k]++;
			o->good[k] += rec->outcome == R_GOOD;
			o->errors[k] += rec->outcome == R_ERROR;
		}
	}
	return 0;
}

/*
 * The victim spins at cpu.max 1% when killed, so its exit path cannot get
 * ahead of the worker, and remote readers take mmap_lock only for reading:
 * the worker frees everything.  Measured with seeds 1-3: 100%.
 */
#define READERS_FREED_PCT	90

/*
 * Four kinds of readers read the victim's memory, or what /proc shows of
 * it, while it is killed and reaped.  None may ever see anything but the
 * victim's data (zero pages from a reaped range would be garbage); each kind
 * must have read while the reap ran, or the test proved nothing.
 */
static int test_readers(const char *root)
{
	const size_t size = MB(8);
	struct reader r[4] = { };
	long good[4] = { }, errors[4] = { }, garbage = 0;
	struct overlap ov = { };
	struct trace_log log = { };
	char cmdline[4096], path[64], *leaf;
	ssize_t cmdline_len;
	pthread_t th[4];
	int i, status, ret = KSFT_FAIL, rounds = 0;
	long long end, deadline;
	struct read_rec *rec[4] = { };
	struct cgs c;
	void *base;
	pid_t pid;

	for (i = 0; i < 4; i++) {
		rec[i] = calloc(READ_RECS, sizeof(*rec[i]));
		if (!rec[i])
			goto out_free;
	}
	cmdline_len = read_text("/proc/self/cmdline", cmdline, sizeof(cmdline));
	if (cgs_init(&c, root) || cmdline_len <= 0)
		goto out;
	leaf = cg_add(&c, c.root, "v", true, true, NULL);
	if (!leaf || trace_start())
		goto out;
	end = now_ns() + budget_s * SECOND;
	/*
	 * Each reader must have started a read inside some reap, or the
	 * test proved nothing for it; a short reap may be missed by a slow
	 * reader (smaps) for a while: go on for up to as long again.
	 */
	while (now_ns() < end ||
	       (!every_reader_overlapped(&ov) &&
		now_ns() < end + budget_s * SECOND)) {
		pid = spawn_pattern_victim(leaf, size, &base);
		if (pid < 0)
			goto out;
		/* It spins at 1%: killed, it exits long after the reap. */
		cg_write(leaf, "cpu.max", "1000 100000");
		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		for (i = 0; i < 4; i++) {
			r[i] = (struct reader){
				.pid = pid, .base = base, .size = size, .kind = i,
				.memfd = open(path, O_RDONLY), .cmdline = cmdline,
				.cmdline_len = cmdline_len, .seed = rand_r(&seed),
				.rec = rec[i],
			};
			pthread_create(&th[i], NULL, reader_fn, &r[i]);
		}
		/* Every reader is at work before the kill. */
		deadline = now_ns() + 10 * SECOND;
		i = 0;
		while (i < 4 && now_ns() < deadline) {
			if (__atomic_load_n(&r[i].good, __ATOMIC_RELAXED))
				i++;
			else
				sleep_us(1000);
		}
		if (i < 4) {
			ksft_print_msg("%s: no good read of victim %d in 10 s\n",
				       reader_name[i], pid);
			stop_readers(r, th);
			goto out;
		}
		sleep_us(10000 + rnd(40000));
		kill(pid, SIGKILL);
		/* Keep reading until the reap finished, then a little more. */
		if (wait_reaps_finished(&log, &pid, 1)) {
			stop_readers(r, th);
			goto out;
		}
		sleep_us(20000);
		stop_readers(r, th);
		for (i = 0; i < 4; i++) {
			good[i] += r[i].good;
			errors[i] += r[i].errors;
			garbage += r[i].garbage;
			if (r[i].garbage)
				ksft_print_msg("%s read garbage from victim %d\n",
					       reader_name[i], pid);
		}
		cg_write(leaf, "cpu.max", "max");
		if (waitpid_until(pid, &status, now_ns() + 30 * SECOND)) {
			ksft_print_msg("victim %d did not die\n", pid);
			goto out;
		}
		rounds++;
		if (check_reaps(&c, &log, false) ||
		    check_one_reap(&log, pid, false, "read") ||
		    count_overlap(&log, pid, r, &ov))
			goto out;
		trace_clear();
		cgs_destroy(&c);
		if (cgs_init(&c, root))
			goto out;
		leaf = cg_add(&c, c.root, "v", true, true, NULL);
		if (!leaf)
			goto out;
	}
	ret = KSFT_PASS;
	ksft_print_msg("%d victims; reads that started between kill and reap end:\n",
		       rounds);
	for (i = 0; i < 4; i++) {
		ksft_print_msg("%s: %ld good, %ld errors; %ld during a reap, %ld good\n",
			       reader_name[i], good[i], errors[i], ov.n[i],
			       ov.good[i]);
		if (!ov.n[i]) {
			ksft_print_msg("no %s read started between a kill and its reap's end\n",
				       reader_name[i]);
			ret = KSFT_FAIL;
		}
	}
	if (garbage || !good[0] || !good[1]) {
		ksft_print_msg("%ld garbage reads; good process_vm_readv %ld, /proc/pid/mem %ld\n",
			       garbage, good[0], good[1]);
		ret = KSFT_FAIL;
	}
	if (check_freed("readers", READERS_FREED_PCT))
		ret = KSFT_FAIL;
out:
	trace_end();
	cgs_destroy(&c);
out_free:
	for (i = 0; i < 4; i++)
		free(rec[i]);
	free(log.ev);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Shared address spaces: vfork children and CLONE_VM partners          */

enum { VFORK_CHILD_KILLED, PARTNER_KILLED, OWNER_KILLED, NR_SHARED };

static const char * const shared_name[NR_SHARED] = {
	"vfork child", "CLONE_VM partner", "CLONE_VM owner",
};

struct shared_arg {
	int variant;
	const char *cov, *plain;
	int report;
	uint64_t *buf;
	size_t size;
	int partner_ready;
};

static void report_pids(int fd, pid_t victim, pid_t partner)
{
	pid_t pids[2] = { victim, partner };

	spawn_ready(fd, pids, sizeof(pids));
}

/* Runs in the CLONE_VM child, on its own stack, in our address space. */
static int vm_child(void *arg)
{
	struct shared_arg *a = arg;
	struct pollfd pfd = { .events = POLLIN };

	if (a->variant != OWNER_KILLED) {
		if (cg_enter_current(a->cov))
			_exit(1);
		report_pids(a->report, getpid(), 0);
		for (;;)
			pause();
	}
	/* The partner outlives the covered owner, then checks the memory. */
	pfd.fd = pidfd_open(getppid());
	if (pfd.fd < 0 || cg_enter_current(a->plain))
		_exit(1);
	__atomic_store_n(&a->partner_ready, 1, __ATOMIC_RELEASE);
	if (poll(&pfd, 1, 30000) != 1)
		_exit(6);
	sleep_us(100000);
	_exit(pattern_intact(a->buf, a->size) ? 0 : 7);
}

static void shared_middle(int fd, void *arg)
{
	const size_t stack_size = MB(1) / 4;
	struct shared_arg *a = arg;
	char *stack;
	pid_t pid;
	int status;

	a->report = fd;
	a->buf = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (a->buf == MAP_FAILED || stack == MAP_FAILED)
		_exit(2);
	fill_pattern(a->buf, a->size);
	switch (a->variant) {
	case VFORK_CHILD_KILLED:
		/* We are suspended until the child is killed. */
		pid = clone(vm_child, stack + stack_size,
			    CLONE_VM | CLONE_VFORK | SIGCHLD, a);
		break;
	case PARTNER_KILLED:
		pid = clone(vm_child, stack + stack_size, CLONE_VM | SIGCHLD, a);
		break;
	default:
		pid = clone(vm_child, stack + stack_size, CLONE_VM | SIGCHLD, a);
		while (pid > 0 && !__atomic_load_n(&a->partner_ready, __ATOMIC_ACQUIRE))
			sleep_us(100);
		report_pids(fd, getpid(), pid);
		for (;;)
			pause();
	}
	if (pid < 0 || waitpid(pid, &status, __WALL) != pid)
		_exit(8);
	_exit(pattern_intact(a->buf, a->size) ? 0 : 7);
}

/* Forks the middle process into cgroup; reads whom to kill. */
static pid_t spawn_shared(const char *cgroup, struct shared_arg *a,
			  pid_t pids[2])
{
	return spawn_in_cgroup(cgroup, shared_middle, a, pids,
			       2 * sizeof(pid_t));
}

static int shared_cgroups(struct cgs *c, const char *root, char **cov,
			  char **plain)
{
	if (cgs_init(c, root))
		return -1;
	*cov = cg_add(c, c->root, "cov", true, true, NULL);
	*plain = cg_add(c, c->root, "plain", false, false, NULL);
	return *cov && *plain ? 0 : -1;
}

static int test_shared_mm(const char *root)
{
	enum { BATCH = 12 };
	int done[NR_SHARED] = { }, i, n, status, ret = KSFT_FAIL, round = 0;
	struct trace_log log = { };
	pid_t victim[BATCH], pids[2], middle;
	char *cov, *plain;
	long long end;
	struct cgs c;

	if (shared_cgroups(&c, root, &cov, &plain) || trace_start())
		goto out;
	end = now_ns() + budget_s * SECOND;
	while (now_ns() < end) {
		for (n = 0; n < BATCH; n++) {
			struct shared_arg a = {
				.variant = (round * BATCH + n) % NR_SHARED,
				.cov = cov, .plain = plain, .size = MB(4),
			};
			pid_t check;

			middle = spawn_shared(a.variant == OWNER_KILLED ? cov : plain,
					      &a, pids);
			if (middle < 0)
				goto out;
			victim[n] = pids[0];
			kill(victim[n], SIGKILL);
			/* Who checks the memory: the middle, or the partner. */
			check = a.variant == OWNER_KILLED ? pids[1] : middle;
			if (a.variant == OWNER_KILLED &&
			    waitpid_until(middle, &status, now_ns() + 30 * SECOND))
				goto hang;
			if (waitpid_until(check, &status, now_ns() + 30 * SECOND))
				goto hang;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				ksft_print_msg("%s: survivor status %#x (7: memory changed)\n",
					       shared_name[a.variant], status);
				goto out;
			}
			done[a.variant]++;
			continue;
hang:
			ksft_print_msg("%s killed: a process did not finish\n",
				       shared_name[a.variant]);
			goto out;
		}
		if (check_reaps(&c, &log, false))
			goto out;
		for (i = 0; i < n; i++)
			if (check_one_reap(&log, victim[i], false, "shared"))
				goto out;
		/*
		 * No share of the RSS can be asked of this test: every reap
		 * must leave the address space to its surviving sharer.  A
		 * worker that never unmaps passes it.
		 */
		if (cg_read_key_long(c.root, "memory.events", "kill_reap ")) {
			ksft_print_msg("a shared address space was reaped\n");
			goto out;
		}
		trace_clear();
		cgs_destroy(&c);
		if (shared_cgroups(&c, root, &cov, &plain))
			goto out;
		round++;
	}
	ksft_print_msg("killed: %d vfork children, %d CLONE_VM partners, %d CLONE_VM owners\n",
		       done[0], done[1], done[2]);
	ret = KSFT_PASS;
out:
	trace_end();
	cgs_destroy(&c);
	free(log.ev);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Robust futex chains, reaped before their owners' exit path           */

#define CHAIN_VICTIMS	3
#define CHAIN_THREADS	2
#define CHAIN_SHARED	3
/*
 * cpu.max 1%, over a long period: under emulation on a loaded host the
 * worker took up to 85 ms to start, and the victims must not get to run
 * before it looked at their robust lists.
 */
#define CHAIN_QUOTA	"5000 500000"
#define CHAIN_PERIOD_MS	500

struct chains {
	pthread_mutex_t m[CHAIN_VICTIMS][CHAIN_THREADS][CHAIN_SHARED];
	int locked;
	int go;		/* the victims spin from now on */
};

struct chain_arg {
	struct chains *ch;
	int victim, thread;
};

/*
 * Shared and private mutexes alternate, so that the thread's robust list
 * runs through private memory from each shared mutex to the next.
 */
static void chain_lock_all(struct chains *ch, int victim, int thread)
{
	int k;

	for (k = 0; k < CHAIN_SHARED; k++)
		lock_robust_pair(&ch->m[victim][thread][k]);
	__atomic_add_fetch(&ch->locked, 1, __ATOMIC_RELEASE);
}

static void *chain_lock(void *arg)
{
	struct chain_arg *a = arg;

	chain_lock_all(a->ch, a->victim, a->thread);
	for (;;)
		pause();
	return NULL;
}

static void chain_victim(int fd, void *arg)
{
	struct chain_arg a[CHAIN_THREADS];
	struct chains *ch = ((struct chain_arg *)arg)->ch;
	int v = ((struct chain_arg *)arg)->victim, t, want;
	unsigned long spins = 0;
	pthread_t th;

	alloc_touched(MB(4));
	for (t = 1; t < CHAIN_THREADS; t++) {
		a[t] = (struct chain_arg){ ch, v, t };
		pthread_create(&th, NULL, chain_lock, &a[t]);
	}
	want = (v + 1) * CHAIN_THREADS;
	/* Victims start one after another: wait for our own threads. */
	while (__atomic_load_n(&ch->locked, __ATOMIC_ACQUIRE) < want - 1)
		sleep_us(100);
	chain_lock_all(ch, v, 0);
	ready(fd, 'r');
	/* Sleep until the cgroup is at 1%, then use up its quota. */
	while (!__atomic_load_n(&ch->go, __ATOMIC_ACQUIRE))
		sleep_us(1000);
	for (;;)
		__atomic_fetch_add(&spins, 1, __ATOMIC_RELAXED);
}

static void chain_waiter(int fd, void *arg)
{
	int err;

	ready(fd, 'r');
	err = robust_timedlock(arg, 30);
	_exit(err == EOWNERDEAD ? 0 : 100 + err);
}

/*
 * Throttle the victims' cgroup to 1% and let them spin; return once it is
 * throttled, with the earliest time its quota can be refilled in *refill.
 *
 * cpu.stat:nr_throttled counts in the period timer, as the quota is
 * refilled and the cgroup let run again: killed right then, the victims
 * would run their exit path at once.  But the spinners use the new 5 ms up
 * within a few ms (the overrun up to the next tick is paid from later
 * periods) and stay throttled until the next refill, a period later.  So
 * we wait 20 ms past the count and make sure usage_usec stands still for
 * 10 ms: the victims are throttled, and cannot run their exit path before
 * *refill, some 465 ms later.
 */
static int chains_throttle(const char *cov, struct chains *ch,
			   long long *refill)
{
	long long deadline = now_ns() + 10 * SECOND, polled;
	long nr, cur, usage;

	if (cg_write(cov, "cpu.max", CHAIN_QUOTA))
		return -1;
	nr = cg_read_key_long(cov, "cpu.stat", "nr_throttled ");
	polled = now_ns();
	__atomic_store_n(&ch->go, 1, __ATOMIC_RELEASE);
	while (now_ns() < deadline) {
		long long before = now_ns();

		cur = cg_read_key_long(cov, "cpu.stat", "nr_throttled ");
		if (cur < 0 || nr < 0)
			return -1;
		if (cur == nr) {
			polled = before;	/* no refill before this */
			sleep_us(500);
			continue;
		}
		nr = cur;
		*refill = polled + CHAIN_PERIOD_MS * MS;
		sleep_us(20000);
		usage = cg_read_key_long(cov, "cpu.stat", "usage_usec ");
		sleep_us(10000);
		if (usage == cg_read_key_long(cov, "cpu.stat", "usage_usec ") &&
		    cg_read_key_long(cov, "cpu.stat", "nr_throttled ") == nr &&
		    now_ns() < *refill - 50 * MS)
			return 0;
		polled = now_ns();
		nr = cg_read_key_long(cov, "cpu.stat", "nr_throttled ");
	}
	ksft_print_msg("the robust victims' cgroup was never seen throttled\n");
	return -1;
}

/*
 * Every victim holds robust mutexes, shared ones other processes wait for,
 * and its lists run through private memory.  Killed while throttled, its
 * exit path comes after the reap, which must keep the VMAs that the exit
 * path reads (a "partial" reap with kept_vmas > 0) and still free the rest;
 * every waiter must then get EOWNERDEAD.
 */
static int chains_check_kept(const struct trace_log *log, const pid_t *victim,
			     long long killed, long long refill, int *partial)
{
	const struct event *f, *s;
	int i, bad = 0;

	for (i = 0; i < CHAIN_VICTIMS; i++) {
		f = find_event(log, EV_FINISH, victim[i]);
		s = find_event(log, EV_START, victim[i]);
		if (f && s && !strcmp(f->result, "partial") && f->kept_vmas) {
			(*partial)++;
			continue;
		}
		ksft_print_msg("robust victim %d: reap %s, kept_vmas %llu, want partial, > 0\n",
			       victim[i], f ? f->result : "missing",
			       f ? f->kept_vmas : 0);
		if (f && s) {
			ksft_print_msg("  reap from %lld to %lld ms after the kill;\n",
				       (s->ts - killed) / MS, (f->ts - killed) / MS);
			ksft_print_msg("  the victims could run again from %lld ms\n",
				       (refill - killed) / MS);
		}
		bad++;
	}
	return bad ? -1 : 0;
}

/*
 * The reaps keep the VMAs that the robust lists run through: the heaps of
 * the private mutexes, the threads' stacks and TLS, the shared page.  The
 * 4 MiB each victim touched, and most of the rest, go.  Measured with seeds
 * 1-3: 98%.  Three quarters leaves room for a bigger heap or stack.
 */
#define ROBUST_FREED_PCT	75

static int test_robust_chains(const char *root)
{
	enum { NWAITERS = CHAIN_VICTIMS * CHAIN_THREADS * CHAIN_SHARED };
	pid_t victim[CHAIN_VICTIMS], waiter[NWAITERS];
	struct trace_log log = { };
	struct chains *ch;
	char *cov, *plain;
	int i, status, ret = KSFT_FAIL, rounds = 0, waiters = 0, partial = 0;
	long long end, killed, refill, started = 0, finished = 0;
	long long gap = LLONG_MAX;
	struct cgs c;

	ch = mmap(NULL, sizeof(*ch), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ch == MAP_FAILED)
		return KSFT_FAIL;
	if (trace_start())
		goto out_unmap;
	end = now_ns() + budget_s * SECOND;
	do {
		if (cgs_init(&c, root))
			goto out;
		cov = cg_add(&c, c.root, "cov", true, true, NULL);
		plain = cg_add(&c, c.root, "plain", false, false, NULL);
		if (!cov || !plain)
			goto out;
		memset(ch, 0, sizeof(*ch));
		for (i = 0; i < CHAIN_VICTIMS; i++) {
			struct chain_arg a = { ch, i, 0 };

			victim[i] = spawn_in(cov, chain_victim, &a, NULL);
			if (victim[i] < 0)
				goto out;
		}
		for (i = 0; i < NWAITERS; i++) {
			waiter[i] = spawn_in(plain, chain_waiter,
					     &ch->m[0][0][0] + i, NULL);
			if (waiter[i] < 0)
				goto out;
		}
		if (chains_throttle(cov, ch, &refill))
			goto out;
		killed = now_ns();
		cg_write(cov, "cgroup.kill", "1");
		if (wait_reaps_finished(&log, victim, CHAIN_VICTIMS))
			goto out;
		/* The reaps are done: let the exit paths run at full speed. */
		cg_write(cov, "cpu.max", "max");
		/* How much room the ordering had: the latest reap, the soonest refill */
		for (i = 0; i < CHAIN_VICTIMS; i++) {
			const struct event *s = find_event(&log, EV_START, victim[i]);
			const struct event *f = find_event(&log, EV_FINISH, victim[i]);

			if (s && s->ts - killed > started)
				started = s->ts - killed;
			if (f->ts - killed > finished)
				finished = f->ts - killed;
		}
		if (refill - killed < gap)
			gap = refill - killed;
		for (i = 0; i < NWAITERS; i++) {
			if (waitpid_until(waiter[i], &status, now_ns() + 60 * SECOND)) {
				ksft_print_msg("a robust mutex waiter hangs\n");
				goto out;
			}
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				ksft_print_msg("waiter %d: status %#x, want EOWNERDEAD\n",
					       i, status);
				goto out;
			}
			waiters++;
		}
		for (i = 0; i < CHAIN_VICTIMS; i++)
			if (waitpid_until(victim[i], &status, now_ns() + 30 * SECOND)) {
				ksft_print_msg("robust victim %d did not die\n", victim[i]);
				goto out;
			}
		if (check_reaps(&c, &log, false))
			goto out;
		for (i = 0; i < CHAIN_VICTIMS; i++)
			if (check_one_reap(&log, victim[i], false, "robust"))
				goto out;
		if (chains_check_kept(&log, victim, killed, refill, &partial))
			goto out;
		trace_clear();
		cgs_destroy(&c);
		rounds++;
	} while (now_ns() < end);
	ksft_print_msg("%d rounds: %d waiters got EOWNERDEAD, %d reaps kept robust-list memory\n",
		       rounds, waiters, partial);
	ksft_print_msg("after the kill: reaps started within %lld ms, finished within %lld ms\n",
		       started / MS, finished / MS);
	ksft_print_msg("the victims could run again %lld ms after it at the soonest\n",
		       gap / MS);
	if (!check_freed("robust", ROBUST_FREED_PCT))
		ret = KSFT_PASS;
out:
	trace_end();
	cgs_destroy(&c);
out_unmap:
	munmap(ch, sizeof(*ch));
	free(log.ev);
	return ret;
}

/* ------------------------------------------------------------------ */

#define T(x) { x, #x }
static const struct stress_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_kill_storm),
	T(test_irq_signals),
	T(test_awkward_states),
	T(test_readers),
	T(test_shared_mm),
	T(test_robust_chains),
};

#undef T

static void help_and_exit(const char *prog)
{
	fprintf(stderr,
		"usage: %s [-s SEED] [-t SECONDS] [TEST...]\n"
		"  Stress and race tests for memory.reap_on_kill, as root, on cgroup v2\n"
		"  with the memory and cpu controllers and tracefs.\n"
		"  -s SEED     random seed (default 1); each test runs with SEED + its index\n"
		"  -t SECONDS  time budget of each test (default 5)\n"
		"  TEST        run only these (test_kill_storm or kill_storm, ...)\n",
		prog);
	exit(KSFT_FAIL);
}

static bool names(unsigned int i, const char *arg)
{
	return !strcmp(arg, tests[i].name) ||
	       !strcmp(arg, tests[i].name + strlen("test_"));
}

/* Is tests[i] selected by the arguments?  None select all. */
static bool selected(unsigned int i, int argc, char **argv)
{
	int a;

	for (a = 0; a < argc; a++)
		if (names(i, argv[a]))
			return true;
	return !argc;
}

static bool has_reap_on_kill(const char *root)
{
	char *probe = cg_name(root, "reap_on_kill_stress_probe");
	bool ok = probe && !cg_create(probe) &&
		  !cg_read_strcmp(probe, "memory.reap_on_kill", "0\n");

	if (probe)
		cg_destroy(probe);
	free(probe);
	return ok;
}

int main(int argc, char **argv)
{
	unsigned int base_seed = 1, i, nsel = 0;
	char root[PATH_MAX];
	int opt;

	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		ksft_exit_fail_msg("readlink /proc/self/exe: %s\n", strerror(errno));
	if (argc == 2 && !strcmp(argv[1], "--exec-loop")) {
		alloc_touched(MB(1));
		execl(self_exe, self_exe, "--exec-loop", NULL);
		_exit(5);
	}
	while ((opt = getopt(argc, argv, "s:t:h")) != -1) {
		char *end;

		switch (opt) {
		case 's':
			base_seed = strtoul(optarg, &end, 0);
			if (*end || !*optarg)
				help_and_exit(argv[0]);
			break;
		case 't':
			budget_s = strtol(optarg, &end, 0);
			if (*end || budget_s < 1 || budget_s > 3600)
				help_and_exit(argv[0]);
			break;
		default:
			help_and_exit(argv[0]);
		}
	}
	for (opt = optind; opt < argc; opt++) {
		for (i = 0; i < ARRAY_SIZE(tests) && !names(i, argv[opt]); i++)
			;
		if (i == ARRAY_SIZE(tests))
			help_and_exit(argv[0]);
	}
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		nsel += selected(i, argc - optind, argv + optind);

	ksft_print_header();
	if (geteuid())
		ksft_exit_skip("must run as root\n");
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "memory") ||
	    cg_read_strstr(root, "cgroup.subtree_control", "cpu"))
		ksft_exit_skip("memory and cpu must be enabled for children\n");
	if (!has_reap_on_kill(root))
		ksft_exit_skip("no memory.reap_on_kill: CONFIG_MEMCG_REAP_ON_KILL is off\n");
	if (!tracefs_usable())
		ksft_exit_skip("tracefs is not mounted at " TRACEFS "\n");
	/* Orphans of our victims come back to us, and are waited for. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	ksft_set_plan(nsel);
	ksft_print_msg("seed %u, %d s per test\n", base_seed, budget_s);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!selected(i, argc - optind, argv + optind))
			continue;
		/* A test's seed does not depend on which others run. */
		seed = base_seed + i;
		memset(&totals, 0, sizeof(totals));
		switch (tests[i].fn(root)) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}
	ksft_finished();
}
