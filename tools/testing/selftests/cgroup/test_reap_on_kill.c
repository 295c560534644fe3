// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for memory.reap_on_kill: the interface, the effect on a throttled
 * victim, every way a process can be killed, and what must never happen
 * (reaping a live process's memory, breaking robust futexes, garbage for
 * remote readers, truncated core dumps, OOM-victim state).
 *
 * A victim whose memory the reap must free is starved beside a busy loop
 * once it has allocated (kill_starved()), so that its exit path cannot
 * run and whatever freed its memory can only have been the reap, which
 * the trace confirms (reaped_at_least()).  cpu.max does not do that on
 * mainline, where a killed task runs its exit at once; it still throttles
 * victims whose exit may run.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/elf.h>
#include <linux/futex.h>
#include <linux/perf_event.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "reap_util.h"

/* Read once in main(): cgroup_util.h no longer defines PAGE_SIZE. */
static size_t page_size;

#define THROTTLE	"1000 100000"	/* cpu.max 1% */
#define SECOND		1000000000LL
#define TIMEOUT		(60 * SECOND)

enum victim_mode {
	V_PAUSE,	/* allocate, then wait to be killed */
	V_ITIMER,	/* ... by its own SIGALRM, 500 ms after it is ready */
	V_HANDLE_TERM,	/* catch SIGTERM and exit normally */
	V_ROBUST,	/* hold a shared and a private robust mutex */
	V_PATTERN,	/* fill memory with an address-derived pattern */
	V_DUMP_ON_QUIT,	/* V_PATTERN, and dump core when sent SIGQUIT */
	V_LEADER_EXITED, /* allocate, then leave a thread and exit the main one */
};

struct victim_args {
	size_t size;
	enum victim_mode mode;
	pthread_mutex_t *shared;	/* V_ROBUST: in MAP_SHARED memory */
	/*
	 * Wait to be killed spinning in user space, not in pause(): cpu.max
	 * then throttles the victim, and kill_when_throttled() kills it while
	 * it is throttled; starved beside a busy loop (kill_starved()), it
	 * has used up its share when it is killed, and no lag lets it run its
	 * exit before the reap.
	 */
	bool spin;
};

/*
 * Tracepoints, in a tracefs instance of this test's own: other tracing
 * users neither see nor disturb our events.  Its trace_clock is "mono",
 * CLOCK_MONOTONIC, so that event times compare with now_ns().
 *
 * Usage, by any test:
 *	static const char * const ev[] = { "reap_on_kill/reap_on_kill_finish",
 *					   "oom/mark_victim", NULL };
 *	struct trace_event fin;
 *
 *	if (!have_tracefs())
 *		return KSFT_SKIP;
 *	if (trace_begin(ev))
 *		goto out;
 *	... kill pid ...
 *	if (!trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND) ||
 *	    !trace_is(&fin, "result", "partial") ||
 *	    trace_field(&fin, "kept_vmas") < 1)
 *		...;
 *	n = trace_find("mark_victim", 0, NULL, 0);	// how many, any pid
 * out:
 *	trace_end();
 */
#define TRACE_INSTANCE	TRACEFS "/instances/test_reap_on_kill"

struct trace_event {
	long long ts;		/* ns, CLOCK_MONOTONIC, when it was recorded */
	char fields[256];	/* what follows "name: ", "pid=42 memcg_id=..." */
};

/* For trace_begin(): every reap_on_kill event, and also the OOM victims. */
#define REAP_EVENTS	"reap_on_kill/reap_on_kill_queue",	\
			"reap_on_kill/reap_on_kill_start",	\
			"reap_on_kill/reap_on_kill_unmap",	\
			"reap_on_kill/reap_on_kill_finish"
static const char * const reap_events[] = { REAP_EVENTS, NULL };
static const char * const reap_oom_events[] = {
	REAP_EVENTS, "oom/mark_victim", NULL
};

static bool have_tracefs(void)
{
	if (tracefs_usable())
		return true;
	ksft_print_msg("tracefs is not mounted at " TRACEFS "\n");
	return false;
}

/*
 * trace_begin() - trace @events (NULL-terminated "system/event" names, e.g.
 * "reap_on_kill/reap_on_kill_queue", "oom/mark_victim") into our instance,
 * emptied, from now on; 0, or -1 (printed).
 */
static int trace_begin(const char * const *events)
{
	return tracefs_begin(TRACE_INSTANCE, 1024, events);
}

/* trace_end() - disable every event and remove the instance. */
static void trace_end(void)
{
	tracefs_end(TRACE_INSTANCE);
}

/**
 * trace_find() - the events called @name of process @pid so far
 * @name: the event's name, e.g. "reap_on_kill_finish", "mark_victim"
 * @pid: the value of its first field, pid= (the victim's tgid for the
 *	 reap_on_kill events), or 0 for any
 * @ev: where to copy the first @max matches, oldest first
 * @max: room in @ev
 *
 * Return: the number of matches (which may exceed @max), or -1 (printed)
 * if the trace cannot be read or lost events.
 */
static int trace_find(const char *name, pid_t pid, struct trace_event *ev,
		      int max)
{
	unsigned long long entries, written;
	char line[512], tag[64], want[32];
	int n = 0, lost = 0;
	FILE *f;

	snprintf(tag, sizeof(tag), ": %s: ", name);
	snprintf(want, sizeof(want), "pid=%d ", pid);
	f = fopen(TRACE_INSTANCE "/trace", "r");
	if (!f) {
		ksft_print_msg("cannot read %s/trace\n", TRACE_INSTANCE);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, tag);

		if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu",
			   &entries, &written) == 2)
			lost = entries != written;
		if (!p || (pid && strncmp(p + strlen(tag), want, strlen(want))))
			continue;
		if (n < max) {
			ev[n].ts = tracefs_line_ns(line, p);
			snprintf(ev[n].fields, sizeof(ev[n].fields), "%s",
				 p + strlen(tag));
			ev[n].fields[strcspn(ev[n].fields, "\n")] = '\0';
		}
		n++;
	}
	fclose(f);
	if (lost) {
		ksft_print_msg("the trace lost %llu events\n", written - entries);
		return -1;
	}
	return n;
}

/* Wait up to timeout ns for a first @name event of @pid; false if none. */
static bool trace_wait(const char *name, pid_t pid, struct trace_event *ev,
		       long long timeout)
{
	long long end = now_ns() + timeout;

	do {
		int n = trace_find(name, pid, ev, 1);

		if (n < 0)
			return false;
		if (n > 0)
			return true;
		usleep(2000);
	} while (now_ns() < end);
	ksft_print_msg("no %s event for pid %d\n", name, pid);
	return false;
}

/* Where the value of field @key of @ev starts, or NULL. */
static const char *trace_value(const struct trace_event *ev, const char *key)
{
	size_t len = strlen(key);
	const char *p = ev->fields;

	while (p) {
		if (!strncmp(p, key, len) && p[len] == '=')
			return p + len + 1;
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	return NULL;
}

/* The number in field @key of @ev ("freed=12kB": 12), or -1. */
static long long trace_field(const struct trace_event *ev, const char *key)
{
	const char *p = trace_value(ev, key);

	return p ? strtoll(p, NULL, 10) : -1;
}

/* Whether field @key of @ev is exactly @val, e.g. "result", "partial". */
static bool trace_is(const struct trace_event *ev, const char *key,
		     const char *val)
{
	const char *p = trace_value(ev, key);
	size_t len = strlen(val);

	return p && !strncmp(p, val, len) && (!p[len] || p[len] == ' ');
}

/* The reap of @pid took from its start event to @fin, in us; -1 unknown. */
static long long reap_took_us(pid_t pid, const struct trace_event *fin)
{
	struct trace_event start;

	if (trace_find("reap_on_kill_start", pid, &start, 1) < 1)
		return -1;
	return (fin->ts - start.ts) / 1000;
}

static int got_term;

static void *wait_forever(void *unused)
{
	for (;;)
		pause();
	return NULL;
}

static void on_term(int sig)
{
	__atomic_store_n(&got_term, 1, __ATOMIC_RELAXED);
}

/* Runs in the child, inside the cgroup; reports readiness on fd. */
static void victim_main(int fd, void *arg)
{
	const struct victim_args *a = arg;
	struct itimerval it = { .it_value = { 0, 500000 } };
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	char *buf;

	buf = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(2);
	/* Base pages: a THP is unmapped in one go and would hide the cost. */
	madvise(buf, a->size, MADV_NOHUGEPAGE);
	if (a->mode == V_PATTERN || a->mode == V_DUMP_ON_QUIT)
		fill_pattern((uint64_t *)buf, a->size);
	else
		memset(buf, 0x5a, a->size);

	switch (a->mode) {
	case V_HANDLE_TERM:
		signal(SIGTERM, on_term);
		break;
	case V_DUMP_ON_QUIT:
		setrlimit(RLIMIT_CORE, &unlimited);
		prctl(PR_SET_DUMPABLE, 1);
		break;
	case V_ROBUST:
		/* Its robust list reaches a->shared through the heap. */
		lock_robust_pair(a->shared);
		break;
	default:
		break;
	}

	spawn_ready(fd, "r", 1);

	switch (a->mode) {
	case V_ITIMER:
		setitimer(ITIMER_REAL, &it, NULL);
		break;
	case V_HANDLE_TERM:
		while (!__atomic_load_n(&got_term, __ATOMIC_RELAXED))
			pause();
		_exit(0);
	case V_LEADER_EXITED: {
		pthread_t t;

		if (pthread_create(&t, NULL, wait_forever, NULL))
			_exit(5);
		pthread_exit(NULL);
	}
	default:
		break;
	}
	while (a->spin)
		__asm__ __volatile__("" ::: "memory");
	for (;;)
		pause();
}

static pid_t spawn_victim(const char *cgroup, const struct victim_args *a)
{
	char c;

	return spawn_in_cgroup(cgroup, victim_main, (void *)a, &c, 1);
}

/* ns from t0 until memory.current drops below limit, or -1 on timeout. */
static long long wait_mem_below(const char *cgroup, long limit, long long t0)
{
	long long end = t0 + TIMEOUT;

	while (now_ns() < end) {
		long cur = cg_read_long(cgroup, "memory.current");

		if (cur >= 0 && cur < limit)
			return now_ns() - t0;
		usleep(500);
	}
	return -1;
}

static long events(const char *cgroup, const char *file, const char *key)
{
	return cg_read_key_long(cgroup, file, key);
}

/* Wait until memory.events:kill_reap reaches want; false on timeout. */
static bool wait_reaps(const char *cgroup, long want)
{
	long long end = now_ns() + 10 * SECOND;

	while (now_ns() < end) {
		if (events(cgroup, "memory.events", "kill_reap ") >= want)
			return true;
		usleep(1000);
	}
	return false;
}

/* wait_reaps() where a shortfall fails the test: says what was counted. */
static bool expect_reaps(const char *cgroup, long want)
{
	if (wait_reaps(cgroup, want))
		return true;
	ksft_print_msg("kill_reap of %s: %ld after 10 s, want %ld\n", cgroup,
		       events(cgroup, "memory.events", "kill_reap "), want);
	return false;
}

static int unthrottle_and_reap(const char *cgroup, pid_t pid, int *status)
{
	cg_write(cgroup, "cpu.max", "max");
	return waitpid(pid, status, 0) == pid ? 0 : -1;
}

/*
 * True if the cgroup's tasks used no CPU for 10 ms: with cpu.max 1% and a
 * 100 ms period, a runnable victim that does not run is throttled.
 */
static bool cpu_stood_still(const char *cgroup)
{
	long before = cg_read_key_long(cgroup, "cpu.stat", "usage_usec ");

	sleep_ms(10);
	return before >= 0 &&
	       cg_read_key_long(cgroup, "cpu.stat", "usage_usec ") == before;
}

/*
 * Throttle a victim that spins in user space, and SIGKILL it while it is
 * throttled, so its exit path cannot run before the reap worker looked.
 * nr_throttled rises at the period boundary, just before the throttled
 * group gets its new quota (do_sched_cfs_period_timer()), so a rise alone
 * means "about to run": wait until the new quota is used up, i.e. until
 * the group's CPU time stands still, and kill then.  If @sent is not
 * NULL, it gets the time just before kill().
 */
static int kill_when_throttled_at(const char *cgroup, pid_t pid,
				  long long *sent)
{
	long long end = now_ns() + 10 * SECOND;
	long before;

	if (cg_write(cgroup, "cpu.max", THROTTLE))
		return -1;
	before = cg_read_key_long(cgroup, "cpu.stat", "nr_throttled ");
	while (now_ns() < end) {
		if (cg_read_key_long(cgroup, "cpu.stat", "nr_throttled ") > before) {
			sleep_ms(20);
			if (!cpu_stood_still(cgroup))
				continue;
			if (sent)
				__atomic_store_n(sent, now_ns(), __ATOMIC_RELEASE);
			return kill(pid, SIGKILL);
		}
		usleep(200);
	}
	ksft_print_msg("victim not seen throttled in 10 s (nr_throttled %ld)\n",
		       before);
	return -1;
}

static int kill_when_throttled(const char *cgroup, pid_t pid)
{
	return kill_when_throttled_at(cgroup, pid, NULL);
}

/* Wait until pid sleeps (state S in /proc/pid/stat), e.g. on a futex. */
static bool wait_sleeping(pid_t pid)
{
	long long end = now_ns() + 10 * SECOND;
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	while (now_ns() < end) {
		if (read_text(path, buf, sizeof(buf)) > 0) {
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'S')
				return true;
		}
		usleep(1000);
	}
	ksft_print_msg("pid %d did not go to sleep\n", pid);
	return false;
}

/* waitpid() for up to timeout ns, then SIGKILL; false on timeout. */
static bool waitpid_timeout(pid_t pid, int *status, long long timeout)
{
	if (!waitpid_until(pid, status, now_ns() + timeout))
		return true;
	kill(pid, SIGKILL);
	waitpid(pid, status, 0);
	return false;
}

/* parent (+memory +cpu for children) / victim */
struct pair {
	char *parent;
	char *leaf;
};

static int pair_create(const char *root, struct pair *cg)
{
	cg->parent = cg_name(root, "reap_on_kill_test");
	cg->leaf = cg_name(cg->parent, "victim");
	if (!cg->parent || !cg->leaf || cg_create(cg->parent) ||
	    cg_write(cg->parent, "cgroup.subtree_control", "+memory +cpu") ||
	    cg_create(cg->leaf))
		return -1;
	return 0;
}

/* Removes the cgroup @cg names, if it is not NULL, and frees the name. */
static void cg_destroy_free(char *cg)
{
	if (cg)
		cg_destroy(cg);
	free(cg);
}

static void pair_destroy(struct pair *cg)
{
	cg_destroy_free(cg->leaf);
	cg_destroy_free(cg->parent);
}

/*
 * pair_create(), memory.reap_on_kill set on the leaf, and trace_begin() of
 * the reap's events: how most tests start.  Return: 0, or -1 if any failed.
 */
static int covered_pair_traced(const char *root, struct pair *cg)
{
	if (pair_create(root, cg) ||
	    cg_write(cg->leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_events))
		return -1;
	return 0;
}

static int write_errno(const char *cgroup, const char *file, const char *val)
{
	char *path = cg_control(cgroup, file);
	int fd, ret;

	fd = open(path, O_WRONLY);
	free(path);
	if (fd < 0)
		return errno;
	ret = write(fd, val, strlen(val)) < 0 ? errno : 0;
	close(fd);
	return ret;
}

static int test_interface(const char *root)
{
	static const char * const bad[] = {
		"2", "-1", "01", "+1", " 1", "1 ", "yes", "true", "0x1", "\n",
		"1\n\n", "10",
	};
	struct pair cg = { };
	int ret = KSFT_FAIL;
	unsigned int i;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/memory.reap_on_kill", root);
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		ksft_print_msg("memory.reap_on_kill exists on the root cgroup\n");
		return KSFT_FAIL;
	}
	if (pair_create(root, &cg))
		goto out;
	if (cg_read_strcmp(cg.leaf, "memory.reap_on_kill", "0\n"))
		goto out;
	if (write_errno(cg.leaf, "memory.reap_on_kill", "1") ||
	    cg_read_strcmp(cg.leaf, "memory.reap_on_kill", "1\n"))
		goto out;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		int err = write_errno(cg.leaf, "memory.reap_on_kill", bad[i]);

		if (err != EINVAL ||
		    cg_read_strcmp(cg.leaf, "memory.reap_on_kill", "1\n")) {
			ksft_print_msg("write '%s': errno %d, want EINVAL, unchanged\n",
				       bad[i], err);
			goto out;
		}
	}
	if (write_errno(cg.leaf, "memory.reap_on_kill", "0\n") ||
	    cg_read_strcmp(cg.leaf, "memory.reap_on_kill", "0\n"))
		goto out;
	if (cg_read_key_long(cg.leaf, "memory.events", "kill_reap ") != 0 ||
	    cg_read_key_long(cg.leaf, "memory.events.local", "kill_reap ") != 0)
		goto out;
	ret = KSFT_PASS;
out:
	pair_destroy(&cg);
	return ret;
}

/*
 * The kernel's text patches, seen through perf's PERF_RECORD_TEXT_POKE
 * side-band records: one per patched site, on the CPU that patched, so
 * one event per CPU.
 */
#define POKE_CPUS	64
#define POKE_PAGES	32	/* ring buffer pages per CPU, a power of 2 */

struct pokes {
	int nr;
	int fd[POKE_CPUS];
	struct perf_event_mmap_page *pg[POKE_CPUS];
};

static void pokes_close(struct pokes *p)
{
	int i;

	for (i = 0; i < p->nr; i++) {
		munmap(p->pg[i], (1 + POKE_PAGES) * page_size);
		close(p->fd[i]);
	}
	p->nr = 0;
}

static int pokes_open(struct pokes *p)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.text_poke = 1,
	};
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	for (p->nr = 0; p->nr < cpus && p->nr < POKE_CPUS; p->nr++) {
		int fd = syscall(__NR_perf_event_open, &attr, -1, p->nr, -1,
				 PERF_FLAG_FD_CLOEXEC);
		void *pg;

		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;	/* an offline CPU */
			ksft_print_msg("perf_event_open(text_poke) on CPU %d: %s\n",
				       p->nr, strerror(errno));
			pokes_close(p);
			return -1;
		}
		pg = mmap(NULL, (1 + POKE_PAGES) * page_size,
			  PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (pg == MAP_FAILED) {
			close(fd);
			pokes_close(p);
			return -1;
		}
		p->fd[p->nr] = fd;
		p->pg[p->nr] = pg;
	}
	return 0;
}

/* Text pokes recorded since the last call; -1 if records were lost. */
static long pokes_read(struct pokes *p)
{
	size_t size = POKE_PAGES * page_size;
	long n = 0;
	int i;

	for (i = 0; i < p->nr; i++) {
		struct perf_event_mmap_page *pg = p->pg[i];
		char *data = (char *)pg + page_size;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = pg->data_tail;

		while (tail < head) {
			struct perf_event_header *h = (void *)(data + tail % size);

			if (h->type == PERF_RECORD_TEXT_POKE)
				n++;
			else if (h->type == PERF_RECORD_LOST)
				n = -1;
			if (n < 0 || !h->size)
				break;
			tail += h->size;
		}
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
		if (n < 0)
			return -1;
	}
	return n;
}

#define TOGGLES	200

static int setting_found;

static int find_setting(const char *path, const struct stat *st, int type,
			struct FTW *ftw)
{
	char file[PATH_MAX], val[8];

	if (type != FTW_D)
		return 0;
	snprintf(file, sizeof(file), "%s/memory.reap_on_kill", path);
	if (read_text(file, val, sizeof(val)) > 0 && val[0] == '1') {
		ksft_print_msg("%s is 1\n", file);
		setting_found = 1;
	}
	return 0;
}

/*
 * Turning the setting on and off in a loop, as a delegatee may, must not
 * patch the kernel text at every write: each patch interrupts every other
 * CPU, isolated ones too.  The first write turns the key on, which must
 * show as text pokes (else nothing here is measured); the rest may turn
 * it off and on again at most twice a second.  Fails if the rest poke
 * more than that allows, as they do when every write patches.  Skips
 * where the first write pokes nothing: without CONFIG_JUMP_LABEL a static
 * key is a plain counter, and no write interrupts another CPU.
 */
static int test_toggle_rate_limited(const char *root)
{
	long first, rest, limit;
	struct pokes pk = { };
	struct pair cg = { };
	int ret = KSFT_FAIL, i;
	long long t;

	setting_found = 0;
	if (nftw(root, find_setting, 16, FTW_PHYS) || setting_found) {
		ksft_print_msg("another cgroup holds the key on: nothing to measure\n");
		return KSFT_SKIP;
	}
	if (pair_create(root, &cg) || pokes_open(&pk))
		goto out;
	/* Past the second for which a setting just cleared keeps the key on. */
	sleep_ms(1500);
	pokes_read(&pk);
	if (cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	first = pokes_read(&pk);
	if (!first) {
		ksft_print_msg("no text poked: a kernel without CONFIG_JUMP_LABEL?\n");
		ret = KSFT_SKIP;
		goto out;
	}
	t = now_ns();
	for (i = 1; i < TOGGLES; i++) {
		if (cg_write(cg.leaf, "memory.reap_on_kill", i % 2 ? "0" : "1"))
			goto out;
	}
	t = now_ns() - t;
	rest = pokes_read(&pk);
	/* The key's sites, off and on again, twice for each second begun. */
	limit = first * 2 * (1 + t / SECOND);
	ksft_print_msg("toggle: the first write poked %ld sites, %d more writes in %lld ms poked %ld (at most %ld)\n",
		       first, TOGGLES - 1, t / 1000000, rest, limit);
	if (first < 0 || rest < 0 || rest > limit)
		goto out;
	ret = KSFT_PASS;
out:
	pokes_close(&pk);
	pair_destroy(&cg);
	return ret;
}

/*
 * Starving a victim, so that its memory can only have been freed by the
 * reap: see kill_starved().
 */

/* Stay runnable in user space, so that cpu.max throttles us. */
static void spin(void)
{
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

/* Confine @pid (0: the caller) to @cpu. */
static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* Confine @pid to the last CPU, which the tests starve victims on. */
static int pin_last_cpu(pid_t pid)
{
	return pin(pid, sysconf(_SC_NPROCESSORS_ONLN) - 1);
}

/*
 * A busy loop pinned to the last CPU, in the cgroup "hog" beside @leaf
 * under @parent; @leaf gets cpu.weight 1 against the hog's default 100,
 * and @victim is pinned to the same CPU.  The victim then gets about 1%
 * of that CPU, in user space and in its exit path alike: unlike cpu.max,
 * which on mainline parks a throttled task only on its way back to user
 * space, so that a killed victim runs its exit path at once.  Returns the
 * hog's pid, or -1.
 */
static pid_t starve_beside_hog(const char *parent, const char *leaf,
			       pid_t victim)
{
	char *hog_cg = cg_name(parent, "hog");
	pid_t hog = -1;

	if (!hog_cg || cg_create(hog_cg) || cg_write(leaf, "cpu.weight", "1") ||
	    pin_last_cpu(victim))
		goto out;
	hog = fork();
	if (hog == 0) {
		if (cg_enter_current(hog_cg) || pin_last_cpu(0))
			_exit(1);
		spin();
	}
out:
	free(hog_cg);
	return hog;
}

/* Undoes starve_beside_hog(), so that the victim can run its exit. */
static void end_starve(const char *parent, const char *leaf, pid_t hog)
{
	char *hog_cg = cg_name(parent, "hog");

	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	cg_write(leaf, "cpu.weight", "100");
	cg_destroy_free(hog_cg);
}

/*
 * starve_beside_hog(), with the hog's cgroup at cpu.weight 10000: 0.01% of
 * the CPU for the victim, so that once killed it keeps its memory for
 * seconds.  Returns the hog's pid (-1 if it could not be started, and a
 * hog that started but could not be weighted is stopped again).
 */
static pid_t starve_hard(const char *parent, const char *leaf, pid_t victim)
{
	char *hog_cg = cg_name(parent, "hog");
	pid_t hog = starve_beside_hog(parent, leaf, victim);

	if (hog > 0 && (!hog_cg || cg_write(hog_cg, "cpu.weight", "10000"))) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
		hog = -1;
	}
	free(hog_cg);
	return hog;
}

static long cpu_usage_us(const char *cgroup)
{
	return cg_read_key_long(cgroup, "cpu.stat", "usage_usec ");
}

/*
 * Send @sig to @pid, a spinning victim of @leaf, starved first to 0.01% of
 * its CPU (starve_hard()); with @sig 0, send nothing: the caller kills it
 * right after (cgroup.kill, the OOM killer) or its own timer does.  That
 * holds a killed victim back on every kernel, where cpu.max does not on
 * mainline: it parks a throttled task only on its way back to user space,
 * and a killed one never goes there.  The cgroup's usage_usec at the kill
 * goes to @usage (-1 if this failed), for ran_since().  Return: the hog's
 * pid, for end_starve(), or -1.
 */
static pid_t kill_starved(const char *parent, const char *leaf, pid_t pid,
			  int sig, long *usage)
{
	pid_t hog = starve_hard(parent, leaf, pid);

	*usage = -1;
	if (hog < 0)
		return hog;
	sleep_ms(200);
	*usage = cpu_usage_us(leaf);
	if (*usage < 0 || (sig && kill(pid, sig)))
		*usage = -1;
	return hog;
}

/*
 * The end of a test whose victim @pid of @cg->leaf was starved beside
 * @hog (kill_starved()): stop the hog, kill and wait for the victim with
 * its CPU limits lifted, stop tracing, remove the cgroups.  Each part is
 * skipped where the test did not get that far (-1, NULL).
 */
static void starved_test_end(struct pair *cg, pid_t hog, pid_t pid)
{
	int status;

	if (cg->leaf)
		end_starve(cg->parent, cg->leaf, hog);
	if (pid > 0) {
		kill(pid, SIGKILL);
		unthrottle_and_reap(cg->leaf, pid, &status);
	}
	trace_end();
	pair_destroy(cg);
}

/*
 * Did the starved victim of @cgroup get the CPU since kill_starved()?
 * If it did not, its own exit path freed nothing: the reap did.
 */
static bool ran_since(const char *cgroup, long usage)
{
	long ran = cpu_usage_us(cgroup) - usage;

	if (ran < 200)
		return false;
	ksft_print_msg("the victim ran %ld us after the kill: it may have freed it\n",
		       ran);
	return true;
}

/* ns from t0 until @file of @cgroup reads below @limit, or -1 after @timeout. */
static long long wait_below(const char *cgroup, const char *file, long limit,
			    long long t0, long long timeout)
{
	while (now_ns() < t0 + timeout) {
		long cur = cg_read_long(cgroup, file);

		if (cur >= 0 && cur < limit)
			return now_ns() - t0;
		usleep(500);
	}
	ksft_print_msg("%s/%s stayed at %ld, limit %ld\n", cgroup, file,
		       cg_read_long(cgroup, file), limit);
	return -1;
}

/* The victim's reap_on_kill_finish: result=reaped, and freed >= @min_kb. */
static bool reaped_at_least(pid_t pid, long long min_kb,
			    struct trace_event *fin)
{
	if (!trace_wait("reap_on_kill_finish", pid, fin, 10 * SECOND))
		return false;
	if (trace_is(fin, "result", "reaped") &&
	    trace_field(fin, "freed") >= min_kb)
		return true;
	ksft_print_msg("reap_on_kill_finish: %s; want result=reaped, freed >= %lld kB\n",
		       fin->fields, min_kb);
	return false;
}

/*
 * Spawn a spinning 64 MiB victim (@mode) in @in, @cg->leaf or a cgroup
 * below it, starve it (@cg->leaf beside the hog under @cg->parent), and
 * kill it with @sig (0: it dies of its own timer, V_ITIMER).  The reap
 * itself must give back three quarters of it: its finish event says
 * result=reaped with freed >= 48 MiB, @cg->leaf's memory.current falls
 * below 16 MiB, and the victim, starved, did not run since the kill
 * (ran_since()), so its own exit freed none of it.  Then the victim may
 * run its exit; its status goes to @status.  Call with tracing begun.
 * Return: 0, or -1 (said why).
 */
static int kill_starved_reaped(struct pair *cg, const char *in, int sig,
			       enum victim_mode mode, int *status)
{
	struct victim_args a = { .size = MB(64), .mode = mode, .spin = true };
	struct trace_event fin;
	int ret = -1;
	pid_t pid, hog;
	long usage;

	pid = spawn_victim(in, &a);
	if (pid < 0)
		return -1;
	hog = kill_starved(cg->parent, cg->leaf, pid, sig, &usage);
	if (usage >= 0 && reaped_at_least(pid, a.size / 1024 * 3 / 4, &fin) &&
	    wait_below(cg->leaf, "memory.current", MB(16), now_ns(),
		       10 * SECOND) >= 0 &&
	    !ran_since(cg->leaf, usage))
		ret = 0;
	end_starve(cg->parent, cg->leaf, hog);
	if (ret)
		kill(pid, SIGKILL);
	if (!waitpid_timeout(pid, status, TIMEOUT)) {
		ksft_print_msg("victim %d did not exit\n", pid);
		ret = -1;
	}
	return ret;
}

/*
 * Kill @pid, a 64 MiB victim in @cgroup, throttled, and check that it is
 * reaped if @covered, and otherwise that no reap is even queued (the
 * trace) in the second after the kill.  A nonzero @setup_err says that
 * preparing the round failed: the victim is only killed and waited for.
 * 0 if all went as expected; says why not.
 */
static int kill_expect(const char *cgroup, pid_t pid, int setup_err,
		       bool covered, const char *what)
{
	long before = events(cgroup, "memory.events", "kill_reap ");
	int ret = -1, status, queued;

	if (setup_err) {
		ksft_print_msg("%s: setting up failed\n", what);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	if (cg_write(cgroup, "cpu.max", THROTTLE) || kill(pid, SIGKILL))
		goto out;
	if (covered) {
		if (!expect_reaps(cgroup, before + 1) ||
		    wait_mem_below(cgroup, MB(16), now_ns()) < 0)
			goto out;
	} else {
		sleep_ms(1000);
	}
	ret = 0;
out:
	if (ret)
		kill(pid, SIGKILL);
	if (unthrottle_and_reap(cgroup, pid, &status))
		ret = -1;
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	if (!ret && queued != covered)
		ret = -1;
	if (ret)
		ksft_print_msg("%s: %d reaps queued for pid %d, kill_reap %ld, want %s\n",
			       what, queued, pid,
			       events(cgroup, "memory.events", "kill_reap "),
			       covered ? "a reap" : "none");
	return ret;
}

/*
 * Set on a cgroup, the setting covers a cgroup below it (which reads 0),
 * also one created after the write, and that cannot opt out; kill_reap
 * counts hierarchically.  Each covered kill is of a starved victim that
 * the reap itself must strip (kill_starved_reaped()).  Off on both, a kill
 * queues no reap (the trace).  The covered cgroup sits below the pair's
 * parent, so that the busy loop that starves the victim, beside it, is
 * not covered.  Fails if a covered kill is not reaped, or reaped by its
 * own exit only.
 */
static int test_hierarchy(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	int ret = KSFT_FAIL, status;
	struct pair cg = { };
	char *leaf = NULL;
	pid_t pid;

	if (!have_tracefs())
		return KSFT_SKIP;
	/* cg.leaf is the covered cgroup, leaf the victims' below it. */
	if (pair_create(root, &cg) || trace_begin(reap_events) ||
	    cg_write(cg.leaf, "cgroup.subtree_control", "+memory +cpu"))
		goto out;
	leaf = cg_name(cg.leaf, "leaf");
	/*
	 * The leaf reads 0 but is covered, also when it is created after
	 * the write ...
	 */
	if (!leaf || cg_create(leaf) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    cg_destroy(leaf) || cg_create(leaf) ||
	    cg_read_strcmp(leaf, "memory.reap_on_kill", "0\n"))
		goto out;
	if (kill_starved_reaped(&cg, leaf, SIGKILL, V_PAUSE, &status) ||
	    !expect_reaps(leaf, 1))
		goto out;
	/* ... and cannot opt out. */
	if (cg_write(leaf, "memory.reap_on_kill", "0") ||
	    kill_starved_reaped(&cg, leaf, SIGKILL, V_PAUSE, &status) ||
	    !expect_reaps(leaf, 2))
		goto out;
	if (events(leaf, "memory.events.local", "kill_reap ") != 2 ||
	    events(cg.leaf, "memory.events", "kill_reap ") != 2 ||
	    events(cg.leaf, "memory.events.local", "kill_reap ") != 0) {
		ksft_print_msg("kill_reap not counted hierarchically\n");
		goto out;
	}
	/*
	 * Off on both: no more reaps, not even queued.  The victim is ready
	 * before the write, so that the kill comes while the static key is
	 * still on (it goes off a second after the last write of 0).
	 */
	pid = spawn_victim(leaf, &a);
	if (pid < 0 ||
	    kill_expect(leaf, pid,
			cg_write(cg.leaf, "memory.reap_on_kill", "0"), false,
			"off on the parent and the leaf"))
		goto out;
	if (events(leaf, "memory.events", "kill_reap ") != 2)
		goto out;
	ret = KSFT_PASS;
out:
	trace_end();
	cg_destroy_free(leaf);
	pair_destroy(&cg);
	return ret;
}

/* Wait until @pid's main thread has exited, leaving its other threads. */
static bool leader_exited(pid_t pid)
{
	long long end = now_ns() + 10 * SECOND;
	char path[64], buf[512], *state;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	while (now_ns() < end) {
		FILE *f = fopen(path, "r");
		bool zombie = false;

		if (!f)
			return false;
		if (fgets(buf, sizeof(buf), f)) {
			state = strrchr(buf, ')');
			zombie = state && state[1] == ' ' && state[2] == 'Z';
		}
		fclose(f);
		if (zombie)
			return true;
		usleep(1000);
	}
	ksft_print_msg("the main thread of %d did not exit\n", pid);
	return false;
}

/*
 * Whether a process is covered follows its cgroup and the setting through
 * every way either changes: the kill path looks at the memcg of a live
 * thread of the process, whose setting in effect every write updates in
 * the whole subtree, and which a new cgroup inherits.  A process
 * that was already in the subtree when the setting was written, one that
 * clone3(CLONE_INTO_CGROUP) starts there from outside, one moved in by
 * another process, and one moved in after its main thread exited (the
 * exited leader stays behind in its old cgroup, and is what kill() of the
 * process signals) are reaped; one moved out of the subtree, and one
 * whose ancestor's setting was cleared while another cgroup keeps the
 * feature in use, are not.  Fails if any of these comes out the other
 * way.
 */
static int test_coverage_follows_task(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	struct pair cg = { };
	int ret = KSFT_FAIL;
	char *outside;
	pid_t pid;
	char c;

	if (!have_tracefs())
		return KSFT_SKIP;
	outside = cg_name(root, "reap_on_kill_outside");
	if (!outside || pair_create(root, &cg) || cg_create(outside) ||
	    trace_begin(reap_events))
		goto out;

	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0 ||
	    kill_expect(cg.leaf, pid,
			cg_write(cg.parent, "memory.reap_on_kill", "1"),
			true, "in the subtree before the write"))
		goto out;

	pid = spawn_cloned_into_cgroup(cg.leaf, victim_main, &a, &c, 1);
	if (pid < 0 ||
	    kill_expect(cg.leaf, pid, 0, true, "cloned into the subtree"))
		goto out;

	pid = spawn_victim(outside, &a);
	if (pid < 0 ||
	    kill_expect(cg.leaf, pid, cg_enter(cg.leaf, pid), true,
			"moved into the subtree"))
		goto out;

	a.mode = V_LEADER_EXITED;
	pid = spawn_victim(outside, &a);
	a.mode = V_PAUSE;
	if (pid < 0 ||
	    kill_expect(cg.leaf, pid,
			!leader_exited(pid) || cg_enter(cg.leaf, pid), true,
			"moved in after its main thread exited"))
		goto out;

	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0 ||
	    kill_expect(outside, pid, cg_enter(outside, pid), false,
			"moved out of the subtree"))
		goto out;

	/* Another cgroup keeps the static key on. */
	if (cg_write(outside, "memory.reap_on_kill", "1"))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0 ||
	    kill_expect(cg.leaf, pid,
			cg_write(cg.parent, "memory.reap_on_kill", "0"),
			false, "the ancestor's setting cleared"))
		goto out;
	ret = KSFT_PASS;
out:
	trace_end();
	cg_destroy_free(outside);
	pair_destroy(&cg);
	return ret;
}

/*
 * A reap counted in memory.events:kill_reap notifies watchers of the file
 * (inotify IN_MODIFY, what poll() on it reports).  The victim is starved:
 * nothing else changes memory.events, and the reap itself must have freed
 * the victim's memory (kill_starved_reaped()).
 */
static int test_events_notify(const char *root)
{
	struct pollfd pfd = { .events = POLLIN };
	int ret = KSFT_FAIL, wd = -1, status;
	struct pair cg = { };
	char *path = NULL;

	if (!have_tracefs())
		return KSFT_SKIP;
	pfd.fd = inotify_init1(IN_NONBLOCK);
	if (covered_pair_traced(root, &cg))
		goto out;
	path = cg_control(cg.leaf, "memory.events");
	if (pfd.fd >= 0 && path)
		wd = inotify_add_watch(pfd.fd, path, IN_MODIFY);
	if (wd < 0) {
		ksft_print_msg("cannot watch %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (kill_starved_reaped(&cg, cg.leaf, SIGKILL, V_PAUSE, &status) ||
	    !expect_reaps(cg.leaf, 1))
		goto out;
	if (poll(&pfd, 1, 10000) != 1) {
		ksft_print_msg("no inotify event for %s in 10 s\n", path);
		goto out;
	}
	ret = KSFT_PASS;
out:
	if (pfd.fd >= 0)
		close(pfd.fd);
	free(path);
	trace_end();
	pair_destroy(&cg);
	return ret;
}

#define KTF_TIMEOUT	(-1)	/* memory not freed within TIMEOUT */
#define KTF_ERROR	(-2)	/* the victim could not be set up */

/* How kill_to_free()'s victim is held back, after it allocated. */
enum starvation { RUNS_FREELY, CPU_MAX, CPU_WEIGHT };

/*
 * Time from SIGKILL until a 256 MiB victim's memory is gone, with the
 * victim starved as @how says (set after it allocated); or KTF_*.
 */
static long long kill_to_free(const char *root, bool reap,
			      enum starvation how)
{
	struct victim_args a = { .size = MB(256), .mode = V_PAUSE };
	struct pair cg = { };
	long long t = KTF_ERROR, t0;
	pid_t pid, hog = -1;
	int status, err = 0;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", reap ? "1" : "0"))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	if (how == CPU_MAX)
		err = cg_write(cg.leaf, "cpu.max", THROTTLE);
	if (how == CPU_WEIGHT) {
		hog = starve_beside_hog(cg.parent, cg.leaf, pid);
		err = hog < 0;
	}
	if (err) {
		kill(pid, SIGKILL);
		goto reap;
	}
	/* Let a throttled victim use up its quota for this period. */
	sleep_ms(200);
	t0 = now_ns();
	kill(pid, SIGKILL);
	t = wait_mem_below(cg.leaf, MB(256) / 10, t0);
	if (t < 0)
		t = KTF_TIMEOUT;
reap:
	end_starve(cg.parent, cg.leaf, hog);
	if (unthrottle_and_reap(cg.leaf, pid, &status))
		t = KTF_ERROR;
out:
	pair_destroy(&cg);
	return t;
}

static const char *ktf_str(long long t, char *buf, size_t size)
{
	if (t == KTF_TIMEOUT)
		snprintf(buf, size, "timeout (over %lld s)", TIMEOUT / SECOND);
	else if (t < 0)
		snprintf(buf, size, "error");
	else
		snprintf(buf, size, "%lld ms", t / 1000000);
	return buf;
}

/*
 * A starved victim's memory comes back about as fast as an unstarved
 * one's with memory.reap_on_kill, and many times faster than without.
 * Checked with the victim at cpu.weight 1 beside a busy loop on its CPU,
 * which holds a killed victim back on every kernel.  At cpu.max 1% the
 * figures are printed only: a 6.12 kernel throttles the killed victim's
 * exit path, a mainline one no longer does (a throttled task is parked
 * only on its way back to user space), so there a plain kill is fast too.
 */
static int test_throttled_victim(const char *root)
{
	long long plain, reap, plain_max, reap_max, plain_slow, reap_slow;
	char b[6][32];

	plain = kill_to_free(root, false, RUNS_FREELY);
	reap = kill_to_free(root, true, RUNS_FREELY);
	reap_max = kill_to_free(root, true, CPU_MAX);
	plain_max = kill_to_free(root, false, CPU_MAX);
	reap_slow = kill_to_free(root, true, CPU_WEIGHT);
	plain_slow = kill_to_free(root, false, CPU_WEIGHT);
	/* One line, as make check greps it: "plain / reap_on_kill" pairs. */
	ksft_print_msg("%s %s / %s; %s %s / %s; %s %s / %s\n",
		       "kill-to-free 256 MiB, plain / reap_on_kill: running freely",
		       ktf_str(plain, b[0], sizeof(b[0])),
		       ktf_str(reap, b[1], sizeof(b[1])),
		       "cpu.max 1%",
		       ktf_str(plain_max, b[2], sizeof(b[2])),
		       ktf_str(reap_max, b[3], sizeof(b[3])),
		       "cpu.weight 1 beside a busy loop",
		       ktf_str(plain_slow, b[4], sizeof(b[4])),
		       ktf_str(reap_slow, b[5], sizeof(b[5])));
	if (plain < 0 || reap < 0 || reap_max < 0 || reap_slow < 0 ||
	    plain_max == KTF_ERROR || plain_slow == KTF_ERROR)
		return KSFT_FAIL;
	/*
	 * A plain kill of a starved victim that did not free its memory
	 * within TIMEOUT took at least that long: only slower than counted.
	 */
	if (plain_slow == KTF_TIMEOUT)
		plain_slow = TIMEOUT;
	/*
	 * About as fast as an unstarved kill (wide margin: QEMU's vCPUs
	 * are host threads and stall now and then), throttled or starved ...
	 */
	if (reap_max > 5 * plain + SECOND || reap_slow > 5 * plain + SECOND)
		return KSFT_FAIL;
	/* ... where a plain kill of the starved victim is many times slower. */
	if (plain_slow < 3 * reap_slow)
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * A reap is not an OOM kill and makes no OOM victim: no OOM event in the
 * cgroup, and no oom/mark_victim event at all in our trace, for any pid
 * (nothing else in the test guest runs out of memory), while each of the
 * victims had its reap queued.  Call with tracing begun with
 * reap_oom_events.  It fails if the reap went through mark_oom_victim(),
 * as the 2019 SS_EXPEDITE proposal did; test_trigger_oom shows that the
 * same trace does catch the OOM killer's mark_victim.
 */
static int check_not_oom_victim(const char *cgroup, int victims)
{
	struct trace_event mv;
	int queued = trace_find("reap_on_kill_queue", 0, NULL, 0);
	int marked = trace_find("mark_victim", 0, &mv, 1);
	long oom = events(cgroup, "memory.events", "oom ");
	long oom_kill = events(cgroup, "memory.events", "oom_kill ");

	if (queued == victims && !marked && !oom && !oom_kill)
		return 0;
	ksft_print_msg("%d reaps queued for %d victims, %d mark_victim, oom/oom_kill %ld/%ld\n",
		       queued, victims, marked, oom, oom_kill);
	if (marked > 0)
		ksft_print_msg("mark_victim: %s\n", mv.fields);
	return -1;
}

/*
 * Each way a process can be killed queues a reap that strips its memory
 * while the victim, starved, cannot run its own exit yet
 * (kill_starved_reaped()); the victim then ends with @want_termsig, and
 * is no OOM victim.
 */
static int trigger(const char *root, int sig, enum victim_mode mode,
		   int want_termsig)
{
	struct pair cg = { };
	int ret = KSFT_FAIL, status;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_oom_events))
		goto out;
	if (kill_starved_reaped(&cg, cg.leaf, sig, mode, &status) ||
	    !expect_reaps(cg.leaf, 1))
		goto out;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != want_termsig) {
		ksft_print_msg("victim ended with status %#x\n", status);
		goto out;
	}
	if (check_not_oom_victim(cg.leaf, 1))
		goto out;
	ret = KSFT_PASS;
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

static int test_trigger_sigkill(const char *root)
{
	return trigger(root, SIGKILL, V_PAUSE, SIGKILL);
}

static int test_trigger_sigterm_default(const char *root)
{
	return trigger(root, SIGTERM, V_PAUSE, SIGTERM);
}

static int test_trigger_itimer(const char *root)
{
	/* SIGALRM from an hrtimer: the kill is queued in hard-IRQ context. */
	return trigger(root, 0, V_ITIMER, SIGALRM);
}

static int test_trigger_cgroup_kill(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE, .spin = true };
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL, i, n = 0, status;
	pid_t pid[4], hog = -1;
	long usage = -1;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_oom_events))
		goto out;
	for (n = 0; n < 4; n++) {
		pid[n] = spawn_victim(cg.leaf, &a);
		if (pid[n] < 0)
			goto reap;
	}
	/* All four starved beside the hog, then cgroup.kill. */
	for (i = 1; i < n; i++)
		if (pin_last_cpu(pid[i]))
			goto reap;
	hog = kill_starved(cg.parent, cg.leaf, pid[0], 0, &usage);
	if (usage < 0 || cg_write(cg.leaf, "cgroup.kill", "1"))
		goto reap;
	/* The reaps themselves freed the memory, none of the victims ran. */
	for (i = 0; i < n; i++)
		if (!reaped_at_least(pid[i], a.size / 1024 * 3 / 4, &fin))
			goto reap;
	if (wait_below(cg.leaf, "memory.current", MB(32), now_ns(),
		       10 * SECOND) < 0 || ran_since(cg.leaf, usage))
		goto reap;
	if (expect_reaps(cg.leaf, 4) && !check_not_oom_victim(cg.leaf, 4))
		ret = KSFT_PASS;
reap:
	end_starve(cg.parent, cg.leaf, hog);
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &status, 0);
	}
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

static int test_trigger_oom(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	struct trace_event mv, q;
	struct pair cg = { };
	int ret = KSFT_FAIL, status, marked;
	pid_t pid;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_oom_events))
		goto out;
	/* No swap to reclaim into, where swap exists. */
	cg_write(cg.leaf, "memory.swap.max", "0");
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	/* Below usage with nothing to reclaim: the OOM killer kills it. */
	cg_write(cg.leaf, "memory.max", "16M");
	if (!expect_reaps(cg.leaf, 1) ||
	    events(cg.leaf, "memory.events", "oom_kill ") != 1)
		goto reap;
	/*
	 * The OOM killer, not the reap, made it an OOM victim: one
	 * mark_victim, for the pid whose reap was queued.  This is the
	 * event check_not_oom_victim() must not see after a plain kill.
	 */
	marked = trace_find("mark_victim", 0, &mv, 1);
	if (marked != 1 || trace_field(&mv, "pid") != pid ||
	    !trace_wait("reap_on_kill_queue", pid, &q, SECOND)) {
		ksft_print_msg("victim %d: %d mark_victim events%s%s\n", pid,
			       marked, marked > 0 ? ", first: " : "",
			       marked > 0 ? mv.fields : "");
		goto reap;
	}
	ret = KSFT_PASS;
reap:
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

/*
 * The setting is 0, or the signal is not fatal: no reap may happen.  A
 * sibling cgroup has the setting, so the static key is on and the kill
 * really goes through the check of the victim's cgroup: without the
 * sibling, a kill in an uncovered cgroup would never reach the hook, and
 * a check that covered everyone would pass unnoticed.  No reap may even
 * be queued (the trace), let alone free memory (kill_reap).
 */
static int no_reap(const char *root, bool setting, int sig,
		   enum victim_mode mode)
{
	struct victim_args a = { .size = MB(64), .mode = mode };
	struct pair cg = { };
	int ret = KSFT_FAIL, status, queued;
	char *sibling = NULL;
	pid_t pid;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", setting ? "1" : "0"))
		goto out;
	sibling = cg_name(cg.parent, "covered_sibling");
	if (!sibling || cg_create(sibling) ||
	    cg_write(sibling, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_events))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	kill(pid, sig);
	/* Give a reaper more than enough time to show up. */
	sleep_ms(1000);
	if (unthrottle_and_reap(cg.leaf, pid, &status))
		goto out;
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	if (queued == 0 &&
	    events(cg.leaf, "memory.events", "kill_reap ") == 0)
		ret = KSFT_PASS;
	else
		ksft_print_msg("%d reaps queued for pid %d, kill_reap %ld\n",
			       queued, pid,
			       events(cg.leaf, "memory.events", "kill_reap "));
out:
	trace_end();
	cg_destroy_free(sibling);
	pair_destroy(&cg);
	return ret;
}

static int test_no_reap_setting_off(const char *root)
{
	return no_reap(root, false, SIGKILL, V_PAUSE);
}

static int test_no_reap_handled_sigterm(const char *root)
{
	return no_reap(root, true, SIGTERM, V_HANDLE_TERM);
}

/*
 * Dumped memory is page-aligned in the core file.  A page of our buffer is
 * recognized by its words: each is pattern_at() of its own address, so
 * neighbours differ by pattern_at(8).  Every page must be there.
 */
static int count_core_pages(const char *path, size_t pages)
{
	const uint64_t step = pattern_at((void *)sizeof(uint64_t));
	uint64_t *page = malloc(page_size);
	size_t found = 0, i;
	int fd;

	fd = open(path, O_RDONLY);
	while (fd >= 0 && page && read(fd, page, page_size) == page_size) {
		for (i = 1; i < page_size / sizeof(*page); i++)
			if (page[i] - page[i - 1] != step)
				break;
		if (i == page_size / sizeof(*page))
			found++;
	}
	if (fd >= 0)
		close(fd);
	free(page);
	if (found != pages)
		ksft_print_msg("core holds %zu of %zu pages\n", found, pages);
	return found == pages ? 0 : -1;
}

/*
 * A fatal signal whose default action dumps core queues no reap: for it,
 * complete_signal() starts no group exit, which is where the kill path
 * queues a reap, and the dump then reads the memory.  The victim, starved,
 * gets SIGQUIT and stays starved for a second, time enough for a reap, had
 * one been queued, to strip it before the dump can start; then it dumps.
 * Fails if a reap was queued (the trace) or counted, or if the core lacks
 * a page of the victim's buffer.
 */
static int test_no_reap_coredump(const char *root)
{
	char pattern[PATH_MAX] = "", core[PATH_MAX], dir[] = "/tmp/reapcoreXXXXXX";
	struct victim_args a = { .size = MB(16), .mode = V_DUMP_ON_QUIT,
				 .spin = true };
	int ret = KSFT_FAIL, status, queued;
	pid_t pid = -1, hog = -1;
	struct pair cg = { };
	long usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (!mkdtemp(dir))
		return KSFT_FAIL;
	if (read_text("/proc/sys/kernel/core_pattern", pattern,
		      sizeof(pattern)) < 0)
		goto out;
	snprintf(core, sizeof(core), "%s/core", dir);
	if (write_text("/proc/sys/kernel/core_pattern", core,
		       strlen(core)) < 0)
		goto out;
	if (covered_pair_traced(root, &cg))
		goto restore;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto restore;
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGQUIT, &usage);
	if (usage < 0)
		goto restore;
	sleep_ms(1000);
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	end_starve(cg.parent, cg.leaf, hog);
	hog = -1;
	if (!waitpid_timeout(pid, &status, TIMEOUT)) {
		ksft_print_msg("the victim did not finish its core dump\n");
		pid = -1;
		goto restore;
	}
	pid = -1;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGQUIT ||
	    !WCOREDUMP(status)) {
		ksft_print_msg("victim did not dump core: status %#x\n", status);
		goto restore;
	}
	if (queued || events(cg.leaf, "memory.events", "kill_reap ") != 0) {
		ksft_print_msg("SIGQUIT: %d reaps queued, kill_reap %ld\n",
			       queued, events(cg.leaf, "memory.events", "kill_reap "));
		goto restore;
	}
	if (count_core_pages(core, MB(16) / page_size)) {
		ksft_print_msg("core dump incomplete\n");
		goto restore;
	}
	ret = KSFT_PASS;
restore:
	if (cg.leaf)
		end_starve(cg.parent, cg.leaf, hog);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	write_text("/proc/sys/kernel/core_pattern", pattern, strlen(pattern));
	unlink(core);
out:
	trace_end();
	rmdir(dir);
	pair_destroy(&cg);
	return ret;
}

/*
 * core_pattern "|THIS_PROGRAM --core-reader FILE": the kernel runs us with
 * the core on stdin.  Copy it slowly to FILE, so that the dump blocks on a
 * full pipe, then create FILE.done.
 */
static int core_reader(const char *file)
{
	char buf[16384], done[PATH_MAX];
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n;

	if (fd < 0)
		return 1;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0) {
		if (write(fd, buf, n) != n)
			return 1;
		sleep_ms(5);
	}
	close(fd);
	snprintf(done, sizeof(done), "%s.done", file);
	fd = open(done, O_WRONLY | O_CREAT, 0600);
	return fd < 0;
}

/*
 * From the ELF header of a core being written to path: the file offset of
 * the one PT_LOAD of exactly size bytes, its address, and the size of the
 * whole core.  0, or -1 if the headers are not all there (yet).
 */
static int core_segment(const char *path, size_t size, off_t *off,
			uintptr_t *vaddr, off_t *total)
{
	struct elf64_hdr eh;
	struct elf64_phdr ph;
	int fd, i, found = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	*total = 0;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		close(fd);
		return -1;
	}
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			break;
		if (ph.p_offset + ph.p_filesz > *total)
			*total = ph.p_offset + ph.p_filesz;
		if (ph.p_type == PT_LOAD && ph.p_filesz == size) {
			*off = ph.p_offset;
			*vaddr = ph.p_vaddr;
			found++;
		}
	}
	close(fd);
	return i == eh.e_phnum && found == 1 ? 0 : -1;
}

/*
 * Pages of our buffer in the first len bytes of the core at path, from off
 * on (addresses from vaddr on), that hold the pattern: good; others: bad.
 */
static void core_check_pages(const char *path, off_t off, uintptr_t vaddr,
			     off_t len, long long *good, long long *bad)
{
	uint64_t *page = malloc(page_size);
	int fd = open(path, O_RDONLY);
	long i;

	*good = *bad = 0;
	for (; fd >= 0 && page && off + page_size <= len;
	     off += page_size, vaddr += page_size) {
		if (pread(fd, page, page_size, off) != page_size)
			break;
		i = pattern_bad_word(page, (void *)vaddr, page_size);
		if (i < 0)
			(*good)++;
		else if (!(*bad)++)
			ksft_print_msg("page at %#lx in the core: word %ld is %#llx\n",
				       (unsigned long)vaddr, i,
				       (unsigned long long)page[i]);
	}
	if (fd >= 0)
		close(fd);
	free(page);
}

/*
 * SIGKILL in the middle of a slow core dump.  The throttled victim dumps
 * core on SIGQUIT to a pipe whose reader (this program, see core_reader())
 * is slow; once a quarter of the victim's 8 MiB buffer reached the reader,
 * we SIGKILL the victim.  In 6.12 that interrupts the dump: the dumper sees
 * the signal pending (dump_interrupted()) and stops writing, so the core
 * ends early.  We assert:
 *  - no reap is queued for the victim (no reap_on_kill_queue event) and
 *    kill_reap stays 0: the kill path leaves a dumping process alone;
 *  - the core was cut short (fewer bytes than its headers announce) and
 *    the victim's status is SIGKILL without the core flag, so the kill
 *    did land during the dump and ended it;
 *  - every page of the buffer that reached the reader holds the pattern
 *    (none zero, as a page reaped under the dumper would be written), and
 *    at least the quarter we waited for did.
 * Drop the core_state test in __reap_on_kill_queue() and the first check
 * fails: the SIGKILL queues a reap of the dumping process.
 */
static int test_no_reap_coredump_killed(const char *root)
{
	struct victim_args a = { .size = MB(8), .mode = V_DUMP_ON_QUIT };
	char pattern[PATH_MAX] = "", self[PATH_MAX], cp[PATH_MAX];
	char dir[] = "/tmp/reapcoreXXXXXX", core[PATH_MAX], done[PATH_MAX];
	off_t seg = 0, total = 0, len = 0;
	long long end, queued, good, bad;
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	uintptr_t vaddr = 0;
	struct stat st;
	ssize_t n;
	pid_t pid;

	if (!have_tracefs())
		return KSFT_SKIP;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || !mkdtemp(dir))
		return KSFT_FAIL;
	self[n] = '\0';
	snprintf(core, sizeof(core), "%s/core", dir);
	snprintf(done, sizeof(done), "%s/core.done", dir);
	/* The kernel keeps 127 bytes of core_pattern. */
	if (snprintf(cp, sizeof(cp), "|%s --core-reader %s", self, core) > 127) {
		ksft_print_msg("core_pattern too long: %s\n", cp);
		goto out;
	}
	if (read_text("/proc/sys/kernel/core_pattern", pattern,
		      sizeof(pattern)) < 0)
		goto out;
	if (write_text("/proc/sys/kernel/core_pattern", cp, strlen(cp)) < 0)
		goto out;
	if (covered_pair_traced(root, &cg))
		goto restore;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto restore;
	if (cg_write(cg.leaf, "cpu.max", THROTTLE) || kill(pid, SIGQUIT))
		goto reap;
	/* Wait until a quarter of the buffer reached the reader. */
	for (end = now_ns() + TIMEOUT; !len; sleep_ms(10)) {
		if (now_ns() >= end) {
			ksft_print_msg("the reader did not get a quarter of the buffer in %lld s\n",
				       TIMEOUT / SECOND);
			goto reap;
		}
		if (!stat(core, &st) &&
		    !core_segment(core, a.size, &seg, &vaddr, &total) &&
		    st.st_size >= seg + (off_t)a.size / 4)
			len = st.st_size;
	}
	kill(pid, SIGKILL);
	/* Give a reaper more than enough time to show up. */
	sleep_ms(1000);
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	if (queued || events(cg.leaf, "memory.events", "kill_reap ") != 0) {
		ksft_print_msg("SIGKILL during the dump: %lld reaps queued, kill_reap %ld\n",
			       queued, events(cg.leaf, "memory.events", "kill_reap "));
		goto reap;
	}
	if (unthrottle_and_reap(cg.leaf, pid, &status))
		goto restore;
	for (end = now_ns() + TIMEOUT; access(done, F_OK); sleep_ms(10))
		if (now_ns() >= end) {
			ksft_print_msg("the core reader did not finish\n");
			goto restore;
		}
	if (stat(core, &st))
		goto restore;
	len = st.st_size;
	core_check_pages(core, seg, vaddr, len < seg + (off_t)a.size ?
			 len : seg + (off_t)a.size, &good, &bad);
	ksft_print_msg("killed dump: %lld of %lld bytes; %zu buffer pages: %lld intact, %lld bad\n",
		       (long long)len, (long long)total, a.size / page_size,
		       good, bad);
	ksft_print_msg("victim status %#x (want SIGKILL, no core)\n", status);
	/* Cut short, and by the SIGKILL: no core flag in the status. */
	if (len >= total || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL || WCOREDUMP(status)) {
		ksft_print_msg("the SIGKILL did not cut the dump\n");
		goto restore;
	}
	if (bad || good < (long long)a.size / 4 / page_size)
		goto restore;
	ret = KSFT_PASS;
	goto restore;
reap:
	kill(pid, SIGKILL);
	unthrottle_and_reap(cg.leaf, pid, &status);
restore:
	write_text("/proc/sys/kernel/core_pattern", pattern, strlen(pattern));
	/* The reader may still be writing if we gave up early. */
	unlink(core);
	unlink(done);
out:
	trace_end();
	rmdir(dir);
	pair_destroy(&cg);
	return ret;
}

/* In a process of its own: 0 if it got EOWNERDEAD, else what it got. */
static int wait_owner_dead(pthread_mutex_t *m)
{
	int err = robust_timedlock(m, TIMEOUT / SECOND);

	return err == EOWNERDEAD ? 0 : err ? err : 255;
}

static void print_waiter(int status)
{
	if (!WIFEXITED(status))
		ksft_print_msg("the waiter ended with status %#x\n", status);
	else if (WEXITSTATUS(status) == 255)
		ksft_print_msg("the waiter got the mutex, want EOWNERDEAD\n");
	else
		ksft_print_msg("the waiter got %s, want EOWNERDEAD\n",
			       strerror(WEXITSTATUS(status)));
}

/*
 * A victim holds a process-shared robust mutex, with its robust list running
 * through private memory, and another process waits for the mutex.  The
 * victim spins in user space until throttled and is killed while throttled,
 * so the reap comes before its exit path walks the list.
 *
 * It fails if the reap ignores the robust list (reap_keep_robust_lists()
 * deleted: result=reaped with kept_vmas=0, and the waiter times out because
 * the exit path faults on the reaped list), if the victim's exit path walked
 * its list before the reap (the kernel then cleared the list pointer:
 * kept_vmas=0), or if the reap kept everything (memory not freed).
 */
/*
 * Let the killed victim run its exit path, and wait for the waiter process
 * to report that it saw the owner die (exit status 0).  *waiter is reaped
 * here either way, and set to -1.
 */
static bool unthrottle_and_wait_owner_dead(const char *cgroup, pid_t *waiter,
					   long long timeout)
{
	int status;
	bool waited;

	cg_write(cgroup, "cpu.max", "max");
	waited = waitpid_timeout(*waiter, &status, timeout);
	*waiter = -1;
	if (!waited) {
		ksft_print_msg("the waiter is still blocked\n");
		return false;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		print_waiter(status);
		return false;
	}
	return true;
}

static int test_robust_futex(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_ROBUST,
				 .spin = true };
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	pid_t pid, waiter = -1;
	long before;

	if (!have_tracefs())
		return KSFT_SKIP;
	a.shared = mmap(NULL, sizeof(*a.shared), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (a.shared == MAP_FAILED)
		return KSFT_FAIL;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	before = cg_read_long(cg.leaf, "memory.current");
	waiter = fork();
	if (waiter == 0)
		_exit(wait_owner_dead(a.shared));
	if (waiter < 0 || !wait_sleeping(waiter) ||
	    kill_when_throttled(cg.leaf, pid) ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto reap;
	ksft_print_msg("robust futex reap: %s\n", fin.fields);
	if (!trace_is(&fin, "result", "partial") ||
	    trace_field(&fin, "kept_vmas") < 1) {
		ksft_print_msg("want result=partial with kept_vmas > 0\n");
		goto reap;
	}
	/* The mutexes' VMAs were kept; the big buffer went. */
	if (wait_mem_below(cg.leaf, before / 2, now_ns()) < 0) {
		ksft_print_msg("memory.current %ld, was %ld before the kill\n",
			       cg_read_long(cg.leaf, "memory.current"), before);
		goto reap;
	}
	/* Now the exit path must still get through the private mutex. */
	if (!unthrottle_and_wait_owner_dead(cg.leaf, &waiter,
					    TIMEOUT + 10 * SECOND))
		goto reap;
	ret = KSFT_PASS;
reap:
	if (waiter > 0) {
		kill(waiter, SIGKILL);
		waitpid(waiter, &status, 0);
	}
	kill(pid, SIGKILL);
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	trace_end();
	munmap(a.shared, sizeof(*a.shared));
	pair_destroy(&cg);
	return ret;
}

/* A program next to this one, e.g. the 32-bit reap_robust32. */
static int sibling_path(char *buf, size_t size, const char *name)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(buf, size, "%s/%s", self, name) < size ? 0 : -1;
}

/*
 * Run "reap_robust32 MODE ..." in a child, in cgroup if not NULL; the child
 * exits 126 if the kernel cannot run 32-bit programs.
 */
static pid_t spawn_robust32(const char *cgroup, const char *helper,
			    const char *mode, int memfd, int ready)
{
	char memfd_s[16], ready_s[16];
	pid_t pid = fork();

	if (pid)
		return pid;
	if (cgroup && cg_enter_current(cgroup))
		_exit(125);
	snprintf(memfd_s, sizeof(memfd_s), "%d", memfd);
	snprintf(ready_s, sizeof(ready_s), "%d", ready);
	if (!strcmp(mode, "hold"))
		execl(helper, helper, mode, memfd_s, "64", ready_s, (char *)NULL);
	else if (!strcmp(mode, "wait"))
		execl(helper, helper, mode, memfd_s, (char *)NULL);
	else
		execl(helper, helper, mode, (char *)NULL);
	_exit(errno == ENOEXEC ? 126 : 127);
}

/*
 * The same as test_robust_futex with a 32-bit victim and waiter: a compat
 * robust list, which reap_keep_robust_lists() does not read, so the whole
 * address space must stay (result=robust_list_unreadable, nothing freed,
 * no kill_reap), and the waiter must see the exit path mark the mutex
 * FUTEX_OWNER_DIED (glibc's EOWNERDEAD; see reap_robust32.c for why it
 * does not go through glibc).
 *
 * It fails if compat lists are not recognized: the 64-bit list pointer of a
 * 32-bit task is NULL, so everything would be reaped (result=reaped, freed
 * > 0) and the waiter would time out, the exit path faulting on the list.
 */
static int test_robust_futex_compat(const char *root)
{
	char helper[PATH_MAX];
	int ret = KSFT_FAIL, status, memfd = -1, ready[2] = { -1, -1 };
	struct trace_event fin;
	struct pair cg = { };
	pid_t pid = -1, waiter = -1;
	char c;

	if (sibling_path(helper, sizeof(helper), "reap_robust32"))
		return KSFT_FAIL;
	if (access(helper, X_OK)) {
		ksft_print_msg("gcc-multilib missing: 32-bit helper not built (%s)\n",
			       helper);
		return KSFT_SKIP;
	}
	pid = spawn_robust32(NULL, helper, "probe", -1, -1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return KSFT_FAIL;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 126) {
		ksft_print_msg("this kernel cannot run 32-bit programs (CONFIG_IA32_EMULATION)\n");
		return KSFT_SKIP;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_print_msg("%s probe: status %#x\n", helper, status);
		return KSFT_FAIL;
	}
	if (!have_tracefs())
		return KSFT_SKIP;

	memfd = memfd_create("reap_robust32", 0);
	if (memfd < 0 || ftruncate(memfd, page_size) || pipe(ready))
		goto out;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_robust32(cg.leaf, helper, "hold", memfd, ready[1]);
	if (pid < 0)
		goto out;
	close(ready[1]);
	ready[1] = -1;
	if (read(ready[0], &c, 1) != 1) {
		ksft_print_msg("the 32-bit victim did not start\n");
		goto reap;
	}
	waiter = spawn_robust32(NULL, helper, "wait", memfd, -1);
	if (waiter < 0 || !wait_sleeping(waiter) ||
	    kill_when_throttled(cg.leaf, pid) ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto reap;
	ksft_print_msg("compat robust futex reap: %s\n", fin.fields);
	if (!trace_is(&fin, "result", "robust_list_unreadable") ||
	    trace_field(&fin, "freed") != 0) {
		ksft_print_msg("want result=robust_list_unreadable, freed=0kB\n");
		goto reap;
	}
	if (events(cg.leaf, "memory.events", "kill_reap ") != 0) {
		ksft_print_msg("kill_reap counted a reap that freed nothing\n");
		goto reap;
	}
	if (!unthrottle_and_wait_owner_dead(cg.leaf, &waiter, 150 * SECOND))
		goto reap;
	ret = KSFT_PASS;
reap:
	if (waiter > 0) {
		kill(waiter, SIGKILL);
		waitpid(waiter, &status, 0);
	}
	kill(pid, SIGKILL);
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	trace_end();
	if (memfd >= 0)
		close(memfd);
	if (ready[0] >= 0)
		close(ready[0]);
	if (ready[1] >= 0)
		close(ready[1]);
	pair_destroy(&cg);
	return ret;
}

struct partner {
	const char *cgroup;
	int ready[2];
};

static int partner_fn(void *arg)
{
	struct partner *p = arg;

	if (cg_enter_current(p->cgroup))
		_exit(1);
	if (write(p->ready[1], "r", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/*
 * The sharer, a child of ours outside the covered cgroup: fills 64 MiB,
 * starts a partner that shares its address space (CLONE_VM, but a
 * process of its own) and moves into @cgroup, kills it, reports its pid
 * on @report, and, told on @go that the reap is over, checks its memory.
 * Exits 0 if that is intact, 3 if not; a reap that stripped it kills it.
 */
static void clone_vm_sharer(const char *cgroup, int report, int go)
{
	const size_t size = MB(64), stack_size = MB(1);
	struct partner p = { .cgroup = cgroup };
	int status;
	uint64_t *buf;
	char *stack, c;
	pid_t pid;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (buf == MAP_FAILED || stack == MAP_FAILED || pipe(p.ready))
		_exit(1);
	fill_pattern(buf, size);
	pid = clone(partner_fn, stack + stack_size, CLONE_VM | SIGCHLD, &p);
	if (pid < 0 || read(p.ready[0], &c, 1) != 1)
		_exit(1);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (write(report, &pid, sizeof(pid)) != sizeof(pid) ||
	    read(go, &c, 1) != 1)
		_exit(1);
	_exit(pattern_bad_word(buf, buf, size) >= 0 ? 3 : 0);
}

/*
 * A process that shares the address space of another one (CLONE_VM) but
 * is a process of its own is killed in a covered cgroup: the reap must be
 * queued, once, and then leave the memory alone, since the other process
 * lives on.  The other process is a child of ours (clone_vm_sharer()), so
 * that a reap that strips the memory kills it, not this test.  Fails if
 * no reap ended with result=shared (so also if nothing was queued), if
 * the sharer's memory changed or it died, or if kill_reap counted a reap.
 */
static int test_clone_vm_partner(const char *root)
{
	int report[2] = { -1, -1 }, go[2] = { -1, -1 };
	int ret = KSFT_FAIL, status, queued, i;
	pid_t sharer = -1, pid = -1;
	struct trace_event fin;
	struct pair cg = { };

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pipe(report) || pipe(go) || covered_pair_traced(root, &cg))
		goto out;
	sharer = fork();
	if (sharer == 0)
		clone_vm_sharer(cg.leaf, report[1], go[0]);
	if (sharer < 0)
		goto out;
	close(report[1]);
	report[1] = -1;
	if (read(report[0], &pid, sizeof(pid)) != sizeof(pid)) {
		waitpid_timeout(sharer, &status, 10 * SECOND);
		sharer = -1;
		ksft_print_msg("the sharer reported no partner: status %#x (a signal: its memory was reaped)\n",
			       status);
		goto out;
	}
	/* Queued, and left alone because the sharer uses the memory. */
	if (!trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto out;
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	if (queued != 1 || !trace_is(&fin, "result", "shared")) {
		ksft_print_msg("%d reaps queued; reap_on_kill_finish: %s; want one, result=shared\n",
			       queued, fin.fields);
		goto out;
	}
	if (write(go[1], "g", 1) != 1)
		goto out;
	if (!waitpid_timeout(sharer, &status, TIMEOUT)) {
		ksft_print_msg("the sharer did not finish\n");
		sharer = -1;
		goto out;
	}
	sharer = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_print_msg("the sharer ended with status %#x (3: its memory changed; a signal: it was reaped)\n",
			       status);
		goto out;
	}
	if (events(cg.leaf, "memory.events", "kill_reap ") != 0) {
		ksft_print_msg("kill_reap %ld after a reap that freed nothing\n",
			       events(cg.leaf, "memory.events", "kill_reap "));
		goto out;
	}
	ret = KSFT_PASS;
out:
	if (sharer > 0) {
		kill(sharer, SIGKILL);
		waitpid(sharer, &status, 0);
	}
	for (i = 0; i < 2; i++) {
		if (report[i] >= 0)
			close(report[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	trace_end();
	pair_destroy(&cg);
	return ret;
}

/* One read that started after the kill: when, and whether it succeeded. */
struct read_rec {
	long long t;
	bool good;
};

#define READ_LOG	65536

struct reader {
	pid_t pid;
	uint64_t *base;
	size_t size;
	bool proc_mem;
	bool *stop;
	long good, errors, garbage;
	int first_errno;
	long long *kill_ns;	/* if set: log reads started after it */
	struct read_rec *log;	/* READ_LOG entries */
	int nlog;
};

static void log_read(struct reader *r, long long t, bool good)
{
	long long k = r->kill_ns ? __atomic_load_n(r->kill_ns, __ATOMIC_ACQUIRE) : 0;

	if (k && t >= k && r->log && r->nlog < READ_LOG)
		r->log[r->nlog++] = (struct read_rec){ t, good };
}

/* Reads of r that started in [from, to]: good ones, failed ones. */
static void reads_between(const struct reader *r, long long from,
			  long long to, long *good, long *failed)
{
	int i;

	*good = *failed = 0;
	for (i = 0; i < r->nlog; i++)
		if (r->log[i].t >= from && r->log[i].t <= to)
			(*(r->log[i].good ? good : failed))++;
}

static void *reader_fn(void *arg)
{
	struct reader *r = arg;
	uint64_t chunk[512];
	unsigned int seed = r->proc_mem;
	char path[64];
	int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/mem", r->pid);
	if (r->proc_mem)
		fd = open(path, O_RDONLY);
	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		size_t off = (rand_r(&seed) % (r->size / sizeof(chunk))) *
			     sizeof(chunk);
		uint64_t *remote = (uint64_t *)((char *)r->base + off);
		struct iovec local = { chunk, sizeof(chunk) };
		struct iovec rem = { remote, sizeof(chunk) };
		long long t = now_ns();
		ssize_t n;

		if (r->proc_mem)
			n = pread(fd, chunk, sizeof(chunk), (off_t)remote);
		else
			n = process_vm_readv(r->pid, &local, 1, &rem, 1, 0);
		if (n != sizeof(chunk)) {
			if (!r->errors++)
				r->first_errno = errno;
			log_read(r, t, false);
			continue;
		}
		if (pattern_bad_word(chunk, remote, sizeof(chunk)) >= 0) {
			r->garbage++;
		} else {
			r->good++;
			log_read(r, t, true);
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/*
 * process_vm_readv() and /proc/pid/mem readers of the victim's pattern, all
 * along: before the kill, while the reap runs, and after it.  No read may
 * return anything but the pattern; reads that started after the kill took
 * effect (the reap_on_kill_queue event, recorded inside kill(), checked to
 * lie between kill()'s call and return on CLOCK_MONOTONIC) and before the
 * reap_on_kill_finish event was recorded must include good ones (pages not
 * reaped yet) and failed ones (MMF_UNSTABLE: a reaped page faults instead
 * of reading as zero).
 *
 * It fails if a reaped page reads back as zeroes (garbage), if readers were
 * shut out during the whole reap (mmap_lock held for writing: no good read
 * in the window), or if the reap were done before kill() returned, or
 * reads failed only once it ended (no failed read in the window).
 */
static int test_remote_readers(const char *root)
{
	struct victim_args a = { .size = MB(128), .mode = V_PATTERN,
				 .spin = true };
	long in_good[2], in_failed[2];
	long long t_sent = 0, t_returned, t_queued, t_fin;
	struct trace_event q, fin;
	struct reader r[2] = { };
	struct pair cg = { };
	bool stop = false;
	pthread_t th[2];
	int ret = KSFT_FAIL, status, i, nth = 0;
	uint64_t *base = NULL;
	char maps[4096], line[256];
	FILE *f;
	pid_t pid;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	/* The victim's buffer is its only mapping of exactly that size. */
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long start, end;

		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    end - start == MB(128))
			base = (uint64_t *)start;
	}
	if (f)
		fclose(f);
	if (!base)
		goto kill;
	for (i = 0; i < 2; i++) {
		r[i] = (struct reader){ .pid = pid, .base = base,
					.size = MB(128), .proc_mem = i,
					.stop = &stop, .kill_ns = &t_sent,
					.log = calloc(READ_LOG, sizeof(*r[i].log)) };
		if (!r[i].log || pthread_create(&th[i], NULL, reader_fn, &r[i]))
			goto stop;
		nth++;
	}
	sleep_ms(200);
	if (kill_when_throttled_at(cg.leaf, pid, &t_sent))
		goto stop;
	t_returned = now_ns();
	/*
	 * Leave the CPUs to the readers and the reap worker: the events
	 * carry their times, so they can be read afterwards.
	 */
	sleep_ms(500);
	if (!trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND) ||
	    !trace_wait("reap_on_kill_queue", pid, &q, SECOND))
		goto stop;
	t_queued = q.ts;
	t_fin = fin.ts;
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	nth = 0;
	ksft_print_msg("readers: process_vm_readv %ld good %ld errors (first: %s), ",
		       r[0].good, r[0].errors, strerror(r[0].first_errno));
	printf("/proc/pid/mem %ld good %ld errors (first: %s), %ld garbage\n",
	       r[1].good, r[1].errors, strerror(r[1].first_errno),
	       r[0].garbage + r[1].garbage);
	for (i = 0; i < 2; i++)
		reads_between(&r[i], t_queued, t_fin, &in_good[i], &in_failed[i]);
	ksft_print_msg("readers: kill() took %lld us; reap queued to finished %lld us, %s\n",
		       (t_returned - t_sent) / 1000, (t_fin - t_queued) / 1000,
		       fin.fields);
	ksft_print_msg("readers: in it, process_vm_readv %ld good %ld failed, %s %ld/%ld\n",
		       in_good[0], in_failed[0], "/proc/pid/mem good/failed", in_good[1],
		       in_failed[1]);
	if (r[0].garbage || r[1].garbage || !r[0].good || !r[1].good)
		goto kill;
	if (t_queued < t_sent || t_queued > t_returned) {
		ksft_print_msg("trace clock is not CLOCK_MONOTONIC: reap queued at %lld us\n",
			       (t_queued - t_sent) / 1000);
		ksft_print_msg("from the kill() call, which returned at %lld us\n",
			       (t_returned - t_sent) / 1000);
		goto kill;
	}
	if (!in_good[0] && !in_good[1]) {
		ksft_print_msg("no good read between the kill and the end of the reap\n");
		goto kill;
	}
	if (!in_failed[0] && !in_failed[1]) {
		ksft_print_msg("no failed read between the kill and the end of the reap\n");
		goto kill;
	}
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto kill;
	ret = KSFT_PASS;
	goto kill;
stop:
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
kill:
	kill(pid, SIGKILL);
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	for (i = 0; i < 2; i++)
		free(r[i].log);
	trace_end();
	pair_destroy(&cg);
	return ret;
}

/*
 * Memory in less common states and kills in less common places: a victim
 * backed by transparent huge pages, one partly swapped out, memory shared
 * with a process that lives on, a SIGKILL to a process already in
 * exit_group(), an address space kept alive past exit_mm() by a reader,
 * a victim migrated between the kill and the reap, and memory.oom.group.
 */

/* cpu.max 0.1%: a victim throttled here gets 1 ms of CPU per second. */
#define CRAWL		"1000 1000000"

/*
 * Fork a child into @cgroup that runs @fn(fd, @arg); @fn writes one word
 * to fd when it is ready (an address the parent needs, or anything), which
 * is returned in @word.
 */
static pid_t spawn_child(const char *cgroup, void (*fn)(int fd, void *arg),
			 void *arg, uintptr_t *word)
{
	uintptr_t w;
	pid_t pid = spawn_in_cgroup(cgroup, fn, arg, &w, sizeof(w));

	if (pid < 0)
		ksft_print_msg("a child in %s failed to start\n", cgroup);
	else if (word)
		*word = w;
	return pid;
}

static void child_ready(int fd, uintptr_t word)
{
	spawn_ready(fd, &word, sizeof(word));
}

static char *map_anon(size_t size)
{
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED)
		_exit(2);
	/* Base pages, unless a test asks for huge ones. */
	madvise(buf, size, MADV_NOHUGEPAGE);
	return buf;
}

/* Whether pid has not exited yet; a zombie is left for waitpid(). */
static bool not_exited(pid_t pid)
{
	siginfo_t si = { };

	if (waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT))
		return false;
	return si.si_pid == 0;
}

/* The state letter in /proc/pid/stat ('Z' for a zombie), or 0. */
static char proc_state(pid_t pid)
{
	char buf[512], *p;

	if (proc_read_text(pid, false, "stat", buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * Set @cgroup, whose processes spin, to cpu.max 0.1% and wait until it is
 * throttled: none of its processes runs again for most of a second.
 * Returns its usage_usec then, or -1.
 */
static long crawl_until_throttled(const char *cgroup)
{
	long long end = now_ns() + 10 * SECOND;
	long before;

	if (cg_write(cgroup, "cpu.max", CRAWL))
		return -1;
	before = cg_read_key_long(cgroup, "cpu.stat", "nr_throttled ");
	while (now_ns() < end) {
		if (cg_read_key_long(cgroup, "cpu.stat", "nr_throttled ") > before)
			return cpu_usage_us(cgroup);
		usleep(200);
	}
	ksft_print_msg("cpu.stat: nr_throttled stayed at %ld for 10 s\n", before);
	return -1;
}

/* Wait up to 10 s for @key in @file of @cgroup to read 0. */
static bool wait_key_zero(const char *cgroup, const char *file,
			  const char *key)
{
	long long end = now_ns() + 10 * SECOND;
	long val;

	do {
		val = cg_read_key_long(cgroup, file, key);
		if (!val)
			return true;
		usleep(1000);
	} while (now_ns() < end);
	ksft_print_msg("%s: %s%ld for 10 s\n", file, key, val);
	return false;
}

#define THP_ENABLED	"/sys/kernel/mm/transparent_hugepage/enabled"

static void thp_victim(int fd, void *arg)
{
	size_t size = *(size_t *)arg;
	char *raw, *buf;

	raw = map_anon(size + MB(2));
	buf = (char *)(((uintptr_t)raw + MB(2) - 1) & ~((uintptr_t)MB(2) - 1));
	if (madvise(buf, size, MADV_HUGEPAGE))
		_exit(2);
	memset(buf, 0x5a, size);
	child_ready(fd, (uintptr_t)buf);
	spin();
}

/* AnonHugePages of pid in kB, or -1. */
static long anon_huge_kb(pid_t pid)
{
	char buf[4096], *p;

	if (proc_read_text(pid, false, "smaps_rollup", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "AnonHugePages:");
	return p ? strtol(p + strlen("AnonHugePages:"), NULL, 10) : -1;
}

/*
 * A victim whose buffer is PMD-mapped transparent huge pages.  Fails if
 * the reap leaves huge PMDs alone (zap_huge_pmd() not reached, or a split
 * that keeps the pages): the finish event's freed would fall short, and
 * memory.current would stay up until the victim, starved, ran its own
 * exit, which ran_since() reports.
 */
static int test_thp_victim(const char *root)
{
	size_t size = MB(64);
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	long huge, usage;
	long long t;
	char buf[128];
	pid_t pid = -1, hog = -1;

	if (read_text(THP_ENABLED, buf, sizeof(buf)) < 0 ||
	    (!strstr(buf, "[always]") && !strstr(buf, "[madvise]"))) {
		ksft_print_msg("THP is off for MADV_HUGEPAGE: %s\n", buf);
		return KSFT_SKIP;
	}
	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, thp_victim, &size, NULL);
	if (pid < 0)
		goto out;
	huge = anon_huge_kb(pid);
	if (huge <= 0) {
		ksft_print_msg("the victim got no huge page (AnonHugePages: %ld kB)\n",
			       huge);
		ret = KSFT_SKIP;
		goto out;
	}
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 || !reaped_at_least(pid, huge * 3 / 4, &fin))
		goto out;
	t = wait_below(cg.leaf, "memory.current", MB(16), now_ns(), 10 * SECOND);
	if (t < 0 || ran_since(cg.leaf, usage))
		goto out;
	ksft_print_msg("THP: %ld kB in huge pages; the reap freed %lld kB in %lld us\n",
		       huge, trace_field(&fin, "freed"), reap_took_us(pid, &fin));
	ksft_print_msg("THP: memory.current < 16 MiB %lld ms after the reap\n",
		       t / 1000000);
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto out;
	ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

#define FILE_BYTE	0x46	/* what the file holds */
#define COW_BYTE	0x56	/* what the victim wrote over its private copy */

struct cow_file_args {
	int fd;
	size_t size;
};

static void cow_file_victim(int fd, void *arg)
{
	struct cow_file_args *a = arg;
	char *buf = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
			 a->fd, 0);

	if (buf == MAP_FAILED)
		_exit(2);
	memset(buf, COW_BYTE, a->size);
	child_ready(fd, (uintptr_t)buf);
	spin();
}

struct page_reads {
	long file;	/* the file's bytes: the victim's were lost */
	long cow;	/* the victim's bytes: not reaped */
	long failed;	/* EFAULT or EIO, as after the OOM reaper */
	long other;	/* another error: the victim's mm is gone */
	int other_errno;
};

/* Read each page of @pid's [@base, @base + @size) through both interfaces. */
static void read_each_page(pid_t pid, int mem_fd, uintptr_t base, size_t size,
			   struct page_reads *r)
{
	long page = sysconf(_SC_PAGESIZE);
	char buf[64];
	size_t off;
	int how;

	for (off = 0; off < size; off += page) {
		for (how = 0; how < 2; how++) {
			struct iovec local = { buf, sizeof(buf) };
			struct iovec rem = { (void *)(base + off), sizeof(buf) };
			ssize_t n;

			if (how)
				n = pread(mem_fd, buf, sizeof(buf), base + off);
			else
				n = process_vm_readv(pid, &local, 1, &rem, 1, 0);
			if (n < 0 && errno == (how ? EIO : EFAULT)) {
				r->failed++;
			} else if (n != sizeof(buf)) {
				r->other++;
				r->other_errno = n < 0 ? errno : 0;
			} else if (buf[0] == FILE_BYTE)
				r->file++;
			else
				r->cow++;
		}
	}
}

/* Do the reads of @pid's [@base, @base + @size) find what the victim wrote? */
static bool reads_victim_bytes(pid_t pid, int mem_fd, uintptr_t base,
			       size_t size)
{
	struct page_reads r = { };

	read_each_page(pid, mem_fd, base, size, &r);
	if (r.cow == (long)(size / sysconf(_SC_PAGESIZE)) * 2)
		return true;
	ksft_print_msg("before the kill: %ld reads of the victim's bytes, %ld of the file's, %ld failed\n",
		       r.cow, r.file, r.failed + r.other);
	return false;
}

/*
 * A victim that wrote over a private file mapping (of a memfd, whose page
 * cache fault-around maps like any file's): the reap unmaps its
 * copied-on-write pages.  A remote reader (process_vm_readv(), /proc/pid/mem)
 * that faults there afterwards must get EFAULT or EIO, as in reaped
 * anonymous memory, and never the file's original bytes in place of what
 * the victim wrote: fault-around (filemap_map_pages()) maps the page cache
 * around a read fault, and must not do so into an address space being
 * reaped.  Fails if the readers do not see the victim's bytes before the
 * kill, if any read after the reap returns the file's bytes or the
 * victim's (not reaped), or fails otherwise (the victim's mm is gone), or
 * if the victim ran after the kill (its own exit could have unmapped it).
 */
static int test_private_file_reaped(const char *root)
{
	struct cow_file_args a = { .fd = -1, .size = MB(4) };
	struct page_reads r = { };
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL, mem_fd = -1;
	pid_t pid = -1, hog = -1;
	char mem[64], *fill;
	uintptr_t base;
	long usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	a.fd = memfd_create("reap_cow_file", 0);
	fill = malloc(a.size);
	if (a.fd < 0 || !fill)
		goto out;
	memset(fill, FILE_BYTE, a.size);
	if (write(a.fd, fill, a.size) != (ssize_t)a.size)
		goto out;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, cow_file_victim, &a, &base);
	if (pid < 0)
		goto out;
	snprintf(mem, sizeof(mem), "/proc/%d/mem", pid);
	mem_fd = open(mem, O_RDONLY);
	if (mem_fd < 0 || !reads_victim_bytes(pid, mem_fd, base, a.size))
		goto out;
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 || !reaped_at_least(pid, a.size / 1024 * 3 / 4, &fin))
		goto out;
	read_each_page(pid, mem_fd, base, a.size, &r);
	ksft_print_msg("private file: %ld reads failed, %ld read the file, %ld the victim's bytes, %ld failed otherwise (%s)\n",
		       r.failed, r.file, r.cow, r.other, strerror(r.other_errno));
	if (r.file || r.cow || r.other || ran_since(cg.leaf, usage))
		goto out;
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto out;
	ret = KSFT_PASS;
out:
	if (mem_fd >= 0)
		close(mem_fd);
	if (a.fd >= 0)
		close(a.fd);
	free(fill);
	starved_test_end(&cg, hog, pid);
	return ret;
}

/*
 * The split victim's private mappings, in MiB: none a multiple of the
 * 16 MiB the workers claim at a time, one smaller than a claim.
 */
static const size_t split_mib[] = { 100, 7, 61, 88 };

static void split_victim(int fd, void *arg)
{
	size_t i, size;
	char *buf;

	for (i = 0; i < ARRAY_SIZE(split_mib); i++) {
		size = MB(split_mib[i]);
		buf = map_anon(size);
		memset(buf, 0x5a, size);
		/* A read-only last page keeps neighbours from merging. */
		if (mprotect(buf + size - page_size, page_size, PROT_READ))
			_exit(2);
	}
	child_ready(fd, 0);
	spin();
}

/* split_round(): the reap was split, but its helper claimed nothing. */
#define SPLIT_ALONE	(-1)

/*
 * One kill of a split victim, see test_split_reap().  Return: KSFT_PASS,
 * KSFT_FAIL, or SPLIT_ALONE if all else held but only one of the two
 * workers claimed a range.
 */
static int split_round(const char *root, uint64_t *shared, size_t shared_size,
		       size_t total)
{
	static const char * const split_events[] = {
		REAP_EVENTS, "oom/reap_split", NULL
	};
	struct trace_event split, fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	long usage;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(split_events))
		goto out;
	pid = spawn_child(cg.leaf, split_victim, NULL, NULL);
	if (pid < 0)
		goto out;
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	/* The only reap of the test: its split has no pid, take any. */
	if (usage < 0 || !trace_wait("reap_split", 0, &split, 10 * SECOND))
		goto out;
	if (trace_field(&split, "workers") != 2) {
		ksft_print_msg("reap_split: %s; want workers=2\n",
			       split.fields);
		goto out;
	}
	if (!reaped_at_least(pid, (total - MB(2)) >> 10, &fin) ||
	    ran_since(cg.leaf, usage))
		goto out;
	ksft_print_msg("split: %s; freed %lld kB in %lld us\n", split.fields,
		       trace_field(&fin, "freed"), reap_took_us(pid, &fin));
	if (!pattern_intact(shared, shared_size)) {
		ksft_print_msg("the shared memory changed\n");
		goto out;
	}
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto out;
	ret = trace_field(&split, "claimed") == 2 ? KSFT_PASS : SPLIT_ALONE;
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

/*
 * A victim of 256 MiB in several mappings, reaped by two workers
 * (oom_kill.reap_workers=2), each unmapping ranges of up to 16 MiB within
 * a mapping, from the top down.  It also maps shared memory that this
 * test wrote and keeps.  Fails if the workers leave part of the private
 * memory mapped (freed falls short, and the starved victim never frees
 * it), if the reap was not split (oom:reap_split's workers), if its
 * helper claimed no range (claimed) in two kills, or if the shared memory
 * changed.  The second kill is there because a correct helper may come
 * too late on a host that holds its vCPU back for tens of ms, while one
 * that never unmaps fails both.
 */
static int test_split_reap(const char *root)
{
	size_t shared_size = MB(32), total = 0, i;
	char old[16] = "0";
	int ret = KSFT_FAIL, round;
	uint64_t *shared;

	for (i = 0; i < ARRAY_SIZE(split_mib); i++)
		total += MB(split_mib[i]);
	if (access(REAP_WORKERS_PARAM, W_OK)) {
		ksft_print_msg("%s: %s (the optional patch that splits a reap is not applied)\n",
			       REAP_WORKERS_PARAM, strerror(errno));
		return KSFT_SKIP;
	}
	if (!have_tracefs())
		return KSFT_SKIP;
	shared = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return KSFT_FAIL;
	fill_pattern(shared, shared_size);
	if (read_text(REAP_WORKERS_PARAM, old, sizeof(old)) < 0 ||
	    write_text(REAP_WORKERS_PARAM, "2", 1) < 0)
		goto out;
	for (round = 1; round <= 2; round++) {
		ret = split_round(root, shared, shared_size, total);
		if (ret != SPLIT_ALONE)
			break;
		ksft_print_msg("kill %d: the helper claimed no range, want claimed=2\n",
			       round);
		ret = KSFT_FAIL;
	}
out:
	write_text(REAP_WORKERS_PARAM, old, strcspn(old, "\n"));
	munmap(shared, shared_size);
	return ret;
}

static void maxrss_victim(int fd, void *arg)
{
	size_t size = *(size_t *)arg;
	char *buf = map_anon(size);

	memset(buf, 0x5a, size);
	child_ready(fd, 0);
	spin();
}

/*
 * What wait4() reports of a reaped victim: its exit records the high-water
 * mark of its RSS (do_exit()), ru_maxrss, from the mm as it then is.  The
 * reap must record it before it unmaps, as every other unmap does.  Fails
 * if ru_maxrss shows only what the reap left: the victim, starved, exits
 * long after the reap.
 */
static int test_maxrss_kept(const char *root)
{
	size_t size = MB(64);
	struct trace_event fin;
	struct rusage ru = { };
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	pid_t pid = -1, hog = -1;
	long usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, maxrss_victim, &size, NULL);
	if (pid < 0)
		goto out;
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 || !reaped_at_least(pid, (size - MB(4)) >> 10, &fin) ||
	    ran_since(cg.leaf, usage))
		goto out;
	end_starve(cg.parent, cg.leaf, hog);
	hog = -1;
	if (wait4(pid, &status, 0, &ru) != pid) {
		ksft_print_msg("wait4: %s\n", strerror(errno));
		goto out;
	}
	pid = -1;
	ksft_print_msg("ru_maxrss %ld kB; the reap freed %lld kB\n",
		       ru.ru_maxrss, trace_field(&fin, "freed"));
	if (ru.ru_maxrss < (long)(size >> 10)) {
		ksft_print_msg("want ru_maxrss >= %zu kB\n", size >> 10);
		goto out;
	}
	ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

#define SWAPFILE	"reap_on_kill.swap"

/* A swap file of @size, with the header mkswap(8) writes, in the cwd. */
static int make_swapfile(size_t size)
{
	const size_t chunk = MB(1);
	char *buf = calloc(1, chunk);
	uint32_t *info;
	size_t done;
	int fd, ret = -1;

	fd = open(SWAPFILE, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || !buf)
		goto out;
	/* Written out: swapon() refuses files with holes. */
	for (done = 0; done < size; done += chunk)
		if (write(fd, buf, chunk) != chunk)
			goto out;
	/* union swap_header: version 1, last_page, no bad pages, magic. */
	info = (uint32_t *)(buf + 1024);
	info[0] = 1;
	info[1] = size / page_size - 1;
	memcpy(buf + page_size - 10, "SWAPSPACE2", 10);
	if (pwrite(fd, buf, page_size, 0) == page_size && !fsync(fd))
		ret = 0;
out:
	if (ret)
		ksft_print_msg("cannot write %s in the current directory: %s\n",
			       SWAPFILE, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/*
 * Swap on a new swap file of @size in the cwd, for one test.
 * Return: KSFT_PASS, KSFT_SKIP if the kernel refuses it, or KSFT_FAIL.
 */
static int swap_begin(size_t size)
{
	if (make_swapfile(size)) {
		unlink(SWAPFILE);
		return KSFT_FAIL;
	}
	if (swapon(SWAPFILE, 0)) {
		ksft_print_msg("swapon %s: %s\n", SWAPFILE, strerror(errno));
		unlink(SWAPFILE);
		return KSFT_SKIP;
	}
	return KSFT_PASS;
}

/* The end of swap_begin(): @ret, or KSFT_FAIL if swapoff() failed. */
static int swap_end(int ret)
{
	if (swapoff(SWAPFILE)) {
		ksft_print_msg("swapoff %s: %s\n", SWAPFILE, strerror(errno));
		ret = KSFT_FAIL;
	}
	unlink(SWAPFILE);
	return ret;
}

static void swap_victim(int fd, void *arg)
{
	size_t size = *(size_t *)arg;
	char *buf = map_anon(size);

	memset(buf, 0x5a, size);
	if (madvise(buf + size / 2, size / 2, MADV_PAGEOUT))
		_exit(2);
	child_ready(fd, 0);
	spin();
}

/*
 * A victim with half of its memory in swap.  The reap zaps swap PTEs as
 * well: unmap_page_range() with no zap_details frees swap entries
 * (zap_nonpresent_ptes(): should_zap_cows(NULL) is true, then
 * free_swap_and_cache_nr()), and with them any swap cache folio left, so
 * memory.swap.current falls along with memory.current.  The per-CPU swap
 * slot cache may hold back up to 64 freed entries per CPU before they are
 * uncharged, hence the 2 MiB slack.
 * Fails if the reap left swap entries to the victim's exit path, which,
 * starved, comes too late (ran_since()).
 */
static int test_swapped_victim(const char *root)
{
	size_t size = MB(64);
	long swapped, cached, resident, usage;
	long long t0, tmem, tswap;
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;

	if (!have_tracefs())
		return KSFT_SKIP;
	ret = swap_begin(MB(96));
	if (ret != KSFT_PASS)
		return ret;
	ret = KSFT_FAIL;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, swap_victim, &size, NULL);
	if (pid < 0)
		goto out;
	/*
	 * MADV_PAGEOUT leaves the folios in the swap cache until writeback
	 * ends; reclaim drops them then, and the reap meets swap entries
	 * without a folio, as with memory swapped out long ago.  What is
	 * still cached (or under writeback: not freed at once) is reported.
	 */
	if (!wait_key_zero(cg.leaf, "memory.stat", "file_writeback "))
		goto out;
	cached = cg_read_key_long(cg.leaf, "memory.stat", "swapcached ");
	cg_write_numeric(cg.leaf, "memory.reclaim", cached);
	if (!wait_key_zero(cg.leaf, "memory.stat", "file_writeback "))
		goto out;
	cached = cg_read_key_long(cg.leaf, "memory.stat", "swapcached ");
	swapped = cg_read_long(cg.leaf, "memory.swap.current");
	resident = cg_read_long(cg.leaf, "memory.current");
	if (swapped < (long)size / 4 || resident < (long)size / 8) {
		ksft_print_msg("half paged out: memory.swap.current %ld, memory.current %ld\n",
			       swapped, resident);
		goto out;
	}
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 || !reaped_at_least(pid, resident / 1024 / 2, &fin))
		goto out;
	t0 = now_ns();
	tmem = wait_below(cg.leaf, "memory.current", MB(16), t0, 5 * SECOND);
	tswap = wait_below(cg.leaf, "memory.swap.current", MB(2), t0,
			   5 * SECOND);
	if (tmem < 0 || tswap < 0 || ran_since(cg.leaf, usage))
		goto out;
	ksft_print_msg("swap: %ld kB swapped out (%ld kB cached), %ld kB resident\n",
		       swapped / 1024, cached / 1024, resident / 1024);
	ksft_print_msg("swap: the reap freed %lld kB of memory and swap; %ld kB swap left\n",
		       trace_field(&fin, "freed"),
		       cg_read_long(cg.leaf, "memory.swap.current") / 1024);
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto out;
	ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return swap_end(ret);
}

/* Whether this process's page at @addr is in swap, not present (pagemap). */
static bool page_in_swap(const void *addr)
{
	off_t off = (uintptr_t)addr / page_size * sizeof(uint64_t);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	uint64_t ent = 0;
	bool ret;

	ret = fd >= 0 && pread(fd, &ent, sizeof(ent), off) == sizeof(ent) &&
	      !(ent >> 63 & 1) && (ent >> 62 & 1);
	if (fd >= 0)
		close(fd);
	return ret;
}

static pid_t idle_tid;

static void *idle_thread(void *arg)
{
	__atomic_store_n(&idle_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/*
 * In a victim: start an idle thread (asleep in pause()) and page out the
 * page of its robust list head, in its TLS, where glibc registers one for
 * every thread.  Exits the victim (status 2 or 3) if it cannot try.
 * Return: the head's address, or 0 if MADV_PAGEOUT left it in memory.
 */
static uintptr_t swap_out_idle_head(void)
{
	struct robust_list_head *head;
	pthread_t t;
	size_t len;
	void *page;
	pid_t tid;

	if (pthread_create(&t, NULL, idle_thread, NULL))
		_exit(2);
	while (!(tid = __atomic_load_n(&idle_tid, __ATOMIC_ACQUIRE)))
		usleep(1000);
	usleep(50000);	/* into pause() */
	if (syscall(SYS_get_robust_list, tid, &head, &len) || !head)
		_exit(3);
	page = (void *)((uintptr_t)head & ~((uintptr_t)page_size - 1));
	if (madvise(page, page_size, MADV_PAGEOUT) || !page_in_swap(page))
		return 0;
	return (uintptr_t)head;
}

/*
 * A victim with an idle thread whose robust list head (in its TLS, where
 * glibc registers one for every thread) was swapped out; both threads on
 * the last CPU, to be starved there.  Reports the head's address, or 0 if
 * it could not be swapped out.
 */
static void swapped_head_victim(int fd, void *arg)
{
	size_t size = *(size_t *)arg;
	char *buf = map_anon(size);

	memset(buf, 0x5a, size);
	if (pin_last_cpu(0))
		_exit(2);
	child_ready(fd, swap_out_idle_head());
	/*
	 * Spinning, the main thread has no lag owed to it that would let it
	 * run its exit (and the process's) at once after the kill; the idle
	 * thread, asleep, gets to run its own exit soon, as it must.
	 */
	spin();
}

/*
 * The robust list head of an idle thread of the victim is in swap, as it
 * is under memory pressure, when the reap matters most.  The worker reads
 * the lists without faulting, and does not fault the head in itself (a
 * fault from the worker could invoke the cgroup's OOM killer, or hang on a
 * file server): it comes back once that thread's exit path, starved as it
 * is, faulted the head in and processed its list, and then reaps all the
 * rest.  Fails if a non-resident head keeps the whole address space
 * (result=robust_list_unreadable or robust_list_not_resident, freed 0),
 * or if the reap did not have to wait (retries=0: the test proved nothing).
 */
static int test_robust_head_swapped(const char *root)
{
	size_t size = MB(64);
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	uintptr_t head = 0;

	if (!have_tracefs())
		return KSFT_SKIP;
	ret = swap_begin(MB(16));
	if (ret != KSFT_PASS)
		return ret;
	ret = KSFT_FAIL;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, swapped_head_victim, &size, &head);
	if (pid < 0)
		goto out;
	if (!head) {
		ksft_print_msg("MADV_PAGEOUT left the idle thread's list head in memory\n");
		goto out;
	}
	hog = starve_beside_hog(cg.parent, cg.leaf, pid);
	if (hog < 0)
		goto out;
	sleep_ms(200);
	if (kill(pid, SIGKILL) ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 40 * SECOND))
		goto out;
	ksft_print_msg("an idle thread's robust list head in swap: %s\n",
		       fin.fields);
	/*
	 * Not a share of the memory: starved as it is, the process's own
	 * exit may have freed part of it while the worker waited.
	 */
	if (trace_is(&fin, "result", "reaped") &&
	    trace_field(&fin, "freed") > 0 &&
	    trace_field(&fin, "retries") >= 1)
		ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return swap_end(ret);
}

/*
 * long_lists_victim(): ROBUST_LISTS threads each hold ROBUST_HELD robust
 * mutexes, each list near the exit path's limit.
 */
#define ROBUST_LISTS		32
#define ROBUST_HELD		2000
/* REAP_ROBUST_BUDGET in mm/reap_on_kill.c: reads for one reap, in all. */
#define ROBUST_BUDGET		262144

/* Their stacks, and with them their list heads, all in one VMA. */
#define HOLDER_STACK		(64 * 1024)

static pthread_mutex_t held[ROBUST_LISTS][ROBUST_HELD];
static int lists_locked;

static void *list_holder(void *arg)
{
	pthread_mutex_t *m = held[(long)arg];
	pthread_mutexattr_t attr;
	int i;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	for (i = 0; i < ROBUST_HELD; i++)
		if (pthread_mutex_init(&m[i], &attr) || pthread_mutex_lock(&m[i]))
			_exit(2);
	__atomic_add_fetch(&lists_locked, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/*
 * A victim whose ROBUST_LISTS threads hold ROBUST_HELD robust mutexes
 * each, which the worker reads entry by entry, and whose last thread,
 * idle, had the page of its robust list head swapped out.  Its main
 * thread spins, so that once starved the process gets no more than its
 * share; the list holders, sharing it, take many seconds to walk their
 * own lists on their way out.  (The thread with the swapped head is
 * idle, not spinning: a thread that runs again gets its rseq area, in
 * that page, written by the kernel on its way back to user space.)
 * Reports the head's address, or 0.
 */
static void long_lists_victim(int fd, void *arg)
{
	pthread_attr_t attr;
	char *stacks;
	pthread_t t;
	long i;

	/*
	 * No THP: khugepaged, collapsing the sparse thread stacks, would
	 * swap the head back in (max_ptes_swap) while the worker waits.
	 */
	if (pin_last_cpu(0) || prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		_exit(2);
	/*
	 * Each list head keeps the VMA it is in, and at most 16 VMAs are kept
	 * before the reap gives up on other grounds: one VMA for all stacks.
	 */
	stacks = mmap(NULL, (size_t)ROBUST_LISTS * HOLDER_STACK,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stacks == MAP_FAILED || pthread_attr_init(&attr))
		_exit(2);
	/* One at a time: the worker walks the threads in creation order. */
	for (i = 0; i < ROBUST_LISTS; i++) {
		if (pthread_attr_setstack(&attr, stacks + i * HOLDER_STACK,
					  HOLDER_STACK) ||
		    pthread_create(&t, &attr, list_holder, (void *)i))
			_exit(2);
		while (__atomic_load_n(&lists_locked, __ATOMIC_ACQUIRE) <= i)
			usleep(1000);
	}
	/* Every walk reads the whole lists: none of them may go to swap. */
	if (mlock(held, sizeof(held)))
		_exit(2);
	child_ready(fd, swap_out_idle_head());
	spin();
}

#ifndef __NR_memfd_secret
#define __NR_memfd_secret	447
#endif

/*
 * A victim whose robust list head is in a page the worker cannot read as
 * it reads others, as @arg says: "zero", an anonymous page only ever read,
 * which maps the shared zero page (no struct page to copy from); "secret",
 * a memfd_secret() page, which is not in the kernel's direct map.  Plus
 * 32 MiB of written private memory to reap.  Reports 1 when ready, or 0
 * if memfd_secret() is not available.
 */
static void odd_head_victim(int fd, void *arg)
{
	size_t size = MB(32);
	char *buf = map_anon(size);
	void *head;
	int sfd;

	memset(buf, 0x5a, size);
	if (!strcmp(arg, "zero")) {
		/* Read-only, so it does not merge with buf. */
		head = mmap(NULL, page_size, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		/* A read maps the shared zero page there, which reads 0. */
		if (head == MAP_FAILED || *(char *)head)
			_exit(2);
	} else {
		sfd = syscall(__NR_memfd_secret, 0);
		if (sfd < 0) {
			child_ready(fd, 0);
			spin();
		}
		head = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
			    MAP_SHARED, sfd, 0);
		if (ftruncate(sfd, page_size) || head == MAP_FAILED)
			_exit(2);
		/* An empty list: the head points to itself. */
		((struct robust_list_head *)head)->list.next = head;
	}
	if (syscall(SYS_set_robust_list, head, sizeof(struct robust_list_head)))
		_exit(3);
	child_ready(fd, 1);
	spin();
}

/*
 * Kill a starved odd_head_victim() of @kind.  Fails if the kernel reports
 * a problem (the guest harness fails the run on an Oops), or if the reap
 * does not end as it should: with the head on the zero page, the list
 * reads as the exit path will read it (a NULL first entry) and only the
 * head's mapping is kept (result=partial, kept_vmas=1, at least 24 of the
 * 32 MiB freed); with the head in secret memory, which the worker may not
 * read, nothing is reaped (result=robust_list_unreadable, freed=0).
 */
static int robust_odd_head(const char *root, const char *kind)
{
	bool zero = !strcmp(kind, "zero");
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	uintptr_t ready = 0;
	long usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, odd_head_victim, (void *)kind, &ready);
	if (pid < 0)
		goto out;
	if (!ready) {
		ksft_print_msg("memfd_secret() is not available here\n");
		ret = KSFT_SKIP;
		goto out;
	}
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto out;
	ksft_print_msg("robust head on %s: %s\n", kind, fin.fields);
	if (zero ? trace_is(&fin, "result", "partial") &&
		   trace_field(&fin, "kept_vmas") == 1 &&
		   trace_field(&fin, "freed") >= 24 << 10 :
		   trace_is(&fin, "result", "robust_list_unreadable") &&
		   trace_field(&fin, "freed") == 0)
		ret = KSFT_PASS;
	else
		ksft_print_msg("want %s\n", zero ?
			       "result=partial, kept_vmas=1, freed >= 24576kB" :
			       "result=robust_list_unreadable, freed=0kB");
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

static int test_robust_head_zero_page(const char *root)
{
	return robust_odd_head(root, "zero");
}

static int test_robust_head_secretmem(const char *root)
{
	return robust_odd_head(root, "secret");
}

/*
 * The worker's reads of robust lists are bounded per reap, not per walk:
 * a walk that ends at a list head in swap is done again on every retry
 * (up to every 64 ms for 30 s), and each time it rereads the lists before
 * it.  Here ROBUST_LISTS threads hold ROBUST_HELD robust mutexes each and
 * a later one's head is in swap, with the process starved to 0.01% of a
 * CPU, so that neither that thread's exit faults its head in, nor the
 * holders' exits empty their lists, for many seconds.  The reap must give up
 * once ROBUST_BUDGET reads are spent, keeping the whole address space, as
 * a plain kill does.  Fails if the reap read more than that, or ended
 * before the budget was spent (then the test proved nothing).
 */
static int test_robust_walk_bounded(const char *root)
{
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	uintptr_t head = 0;
	long long reads;
	long usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	ret = swap_begin(MB(16));
	if (ret != KSFT_PASS)
		return ret;
	ret = KSFT_FAIL;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, long_lists_victim, NULL, &head);
	if (pid < 0)
		goto out;
	if (!head) {
		ksft_print_msg("MADV_PAGEOUT left the thread's list head in memory\n");
		goto out;
	}
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 40 * SECOND))
		goto out;
	ksft_print_msg("%d x %d robust mutexes, then a list head in swap: %s\n",
		       ROBUST_LISTS, ROBUST_HELD, fin.fields);
	reads = trace_field(&fin, "robust_reads");
	if (reads == ROBUST_BUDGET &&
	    trace_is(&fin, "result", "robust_list_unreadable") &&
	    trace_field(&fin, "freed") == 0)
		ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return swap_end(ret);
}

#define NR_SHARED_SEGMENTS	20

struct shared_segments {
	pthread_mutex_t *mutex[NR_SHARED_SEGMENTS];	/* one per mapping */
	size_t size;					/* private memory */
};

/* Holds one robust mutex in each segment, each behind a private one. */
static void segments_victim(int fd, void *arg)
{
	const struct shared_segments *seg = arg;
	char *buf = map_anon(seg->size);
	int i;

	memset(buf, 0x5a, seg->size);
	for (i = 0; i < NR_SHARED_SEGMENTS; i++)
		if (lock_robust_pair(seg->mutex[i]))
			_exit(2);
	child_ready(fd, 0);
	/* Spinning: no lag owed to it lets it run its exit at once. */
	spin();
}

/*
 * A victim holds robust mutexes in more shared mappings (20) than the walk
 * keeps VMAs for (16).  Shared mappings are never reaped, so they need no
 * keeping: only the private memory the list runs through (the heap, the
 * TLS with the head) is kept, the rest is reaped, and a waiter on the
 * mutex deepest in the list gets EOWNERDEAD when the victim exits.  Fails
 * if shared VMAs count against the limit (result=robust_list_unreadable,
 * nothing freed), or if the waiter does not get EOWNERDEAD.
 */
static int test_robust_many_segments(const char *root)
{
	struct shared_segments seg = { .size = MB(64) };
	pid_t pid = -1, hog = -1, waiter = -1;
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL, status, i;

	if (!have_tracefs())
		return KSFT_SKIP;
	for (i = 0; i < NR_SHARED_SEGMENTS; i++) {
		seg.mutex[i] = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (seg.mutex[i] == MAP_FAILED) {
			seg.mutex[i] = NULL;
			goto out;
		}
	}
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, segments_victim, &seg, NULL);
	if (pid < 0)
		goto out;
	waiter = fork();
	if (waiter == 0)
		_exit(wait_owner_dead(seg.mutex[0]));
	if (waiter < 0 || !wait_sleeping(waiter))
		goto out;
	hog = starve_hard(cg.parent, cg.leaf, pid);
	if (hog < 0)
		goto out;
	sleep_ms(200);
	if (kill(pid, SIGKILL) ||
	    !trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto out;
	ksft_print_msg("robust mutexes in %d shared mappings: %s\n",
		       NR_SHARED_SEGMENTS, fin.fields);
	if (!trace_is(&fin, "result", "partial") ||
	    trace_field(&fin, "kept_vmas") < 1 ||
	    trace_field(&fin, "freed") < (long long)seg.size / 1024 * 3 / 4) {
		ksft_print_msg("want result=partial, kept_vmas > 0, freed >= %zu kB\n",
			       seg.size / 1024 * 3 / 4);
		goto out;
	}
	end_starve(cg.parent, cg.leaf, hog);
	hog = -1;
	if (!unthrottle_and_wait_owner_dead(cg.leaf, &waiter,
					    TIMEOUT + 10 * SECOND))
		goto out;
	ret = KSFT_PASS;
out:
	if (cg.leaf)
		end_starve(cg.parent, cg.leaf, hog);
	if (waiter > 0) {
		kill(waiter, SIGKILL);
		waitpid(waiter, &status, 0);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	trace_end();
	pair_destroy(&cg);
	for (i = 0; i < NR_SHARED_SEGMENTS; i++)
		if (seg.mutex[i])
			munmap(seg.mutex[i], page_size);
	return ret;
}

/* /proc/pid/oom_score, or -1. */
static long oom_score(pid_t pid)
{
	char buf[32];

	if (proc_read_text(pid, false, "oom_score", buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* Whether pid still has its address space: statm's size is not 0. */
static bool has_mm(pid_t pid)
{
	char buf[128];

	return proc_read_text(pid, false, "statm", buf, sizeof(buf)) > 0 &&
	       strtol(buf, NULL, 10) > 0;
}

/*
 * The OOM killer sees a reaped process as it sees any killed one that has
 * not exited yet: /proc/pid/oom_score, which is oom_badness() as the OOM
 * killer computes it, stays above 0 after the reap.  It would read 0 had
 * the reap set MMF_OOM_SKIP, as the OOM reaper does once it is done: then
 * an OOM before the victim's exit would pass it over (oom_badness()) and
 * kill another process instead of waiting for this one
 * (task_will_free_mem()).  The victim is starved beside a busy loop so
 * that it still has its mm when oom_score is read; fails if it has not.
 */
static int test_oom_score_kept(const char *root)
{
	/*
	 * Spinning, the victim has used its share of the CPU when it is
	 * killed: no lag owed to it that would let it run its exit at once.
	 */
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE, .spin = true };
	long before, after = -1;
	struct trace_event fin;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	bool alive = false;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	hog = starve_hard(cg.parent, cg.leaf, pid);
	sleep_ms(200);
	before = oom_score(pid);
	if (hog < 0 || before <= 0 || kill(pid, SIGKILL) ||
	    !reaped_at_least(pid, a.size / 1024 * 3 / 4, &fin))
		goto out;
	after = oom_score(pid);
	alive = has_mm(pid);
	ksft_print_msg("oom_score %ld before the kill, %ld after the reap (victim %s its mm)\n",
		       before, after, alive ? "still has" : "has dropped");
	if (!alive)
		goto out;
	if (after > 0)
		ret = KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

#define TEARDOWN_VICTIMS	20
#define LOCK_EVENT		"mmap_lock/mmap_lock_acquire_returned"

/*
 * Count the mmap_lock write acquisitions in the trace: by kworkers, and
 * by the processes in @pids.  Return: 0, or -1 if the trace lost events.
 */
static int count_write_locks(const pid_t *pids, int n, int *victims,
			     int *kworkers)
{
	unsigned long long entries, written;
	char line[512], task[64];
	bool lost = false;
	FILE *f;
	int i;

	*victims = *kworkers = 0;
	f = fopen(TRACE_INSTANCE "/trace", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *dash;
		pid_t pid;

		if (sscanf(line, "# entries-in-buffer/entries-written: %llu/%llu",
			   &entries, &written) == 2)
			lost = entries != written;
		if (!strstr(line, ": mmap_lock_acquire_returned: ") ||
		    sscanf(line, " %63s", task) != 1)
			continue;
		dash = strrchr(task, '-');
		if (!dash)
			continue;
		pid = atoi(dash + 1);
		if (!strncmp(task, "kworker/", 8) && (*kworkers)++ < 3)
			ksft_print_msg("in a kworker: %s", line);
		for (i = 0; i < n; i++)
			if (pids[i] == pid)
				(*victims)++;
	}
	fclose(f);
	return lost ? -1 : 0;
}

/*
 * Who tears a reaped victim's address space down?  The worker only
 * unmaps its private memory; the rest (page tables, file mappings, the
 * VMAs themselves) is freed by the victim's own exit_mmap(), on its own
 * CPU time, as after a plain kill.  Had the worker held a reference to
 * the mm (mm_users) while the victim's threads exited, its own would
 * often be the last, and exit_mmap() would run in a kworker, outside the
 * victim's cpu.max.  exit_mmap() takes mmap_lock for writing, and the
 * mmap_lock tracepoint tells who did.  Fails if a kworker took an
 * mmap_lock for writing while victims were killed and reaped, or if the
 * victims' own exits did not show up (then the check saw nothing).
 */
static int test_teardown_stays_with_victim(const char *root)
{
	struct victim_args a = { .size = MB(4), .mode = V_PAUSE };
	pid_t pids[TEARDOWN_VICTIMS];
	int ret = KSFT_FAIL, status, i, n = 0, victims, kworkers;
	struct trace_event fin;
	struct pair cg = { };

	if (!have_tracefs())
		return KSFT_SKIP;
	if (access(TRACEFS "/events/" LOCK_EVENT, F_OK)) {
		ksft_print_msg("no %s event (CONFIG_TRACING)\n", LOCK_EVENT);
		return KSFT_SKIP;
	}
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    trace_begin(reap_events) ||
	    tracefs_write(TRACE_INSTANCE, "events/" LOCK_EVENT "/filter",
			  "write == 1") ||
	    tracefs_write(TRACE_INSTANCE, "events/" LOCK_EVENT "/enable", "1"))
		goto out;
	for (n = 0; n < TEARDOWN_VICTIMS; n++) {
		pids[n] = spawn_victim(cg.leaf, &a);
		if (pids[n] < 0 || kill(pids[n], SIGKILL) ||
		    waitpid(pids[n], &status, 0) != pids[n])
			goto out;
	}
	for (i = 0; i < n; i++)
		if (!trace_wait("reap_on_kill_finish", pids[i], &fin,
				10 * SECOND))
			goto out;
	if (count_write_locks(pids, n, &victims, &kworkers)) {
		ksft_print_msg("cannot read the trace, or it lost events\n");
		goto out;
	}
	ksft_print_msg("mmap_lock taken for writing: %d times by the %d victims, %d by kworkers\n",
		       victims, n, kworkers);
	if (victims >= n && !kworkers)
		ret = KSFT_PASS;
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

struct lock_holder {
	char *buf;
	size_t size;
};

/* mprotect() holds mmap_lock for writing while it walks every PTE. */
static void *mprotect_loop(void *arg)
{
	const struct lock_holder *h = arg;

	for (;;) {
		mprotect(h->buf, h->size, PROT_READ);
		mprotect(h->buf, h->size, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

/*
 * A victim with a thread that keeps mmap_lock write-locked nearly all the
 * time, pinned to the last CPU with the thread (starve_beside_hog() pins
 * only the main thread).
 */
static void lock_holder_victim(int fd, void *arg)
{
	static struct lock_holder h;
	pthread_t t;

	h.size = *(size_t *)arg;
	h.buf = map_anon(h.size);
	memset(h.buf, 0x5a, h.size);
	if (pin_last_cpu(0) || pthread_create(&t, NULL, mprotect_loop, &h))
		_exit(2);
	child_ready(fd, 0);
	for (;;)
		pause();
}

/* How many kills test_mmap_lock_held() tries to land inside mprotect(). */
#define LOCK_HELD_TRIES	3

/*
 * One kill of a lock_holder_victim() starved of CPU.  Returns KSFT_PASS if
 * the reap freed a good part of the victim's memory after finding
 * mmap_lock taken, KSFT_FAIL if it did not, and KSFT_SKIP if the kill
 * found the lock free (retries=0): the thread spends nearly all its time
 * inside mprotect(), but the kill can land between two calls, and then
 * this kill proved nothing either way.
 */
static int kill_lock_holder(const char *root, size_t size)
{
	struct trace_event fin, unmap;
	struct pair cg = { };
	int ret = KSFT_FAIL;
	pid_t pid = -1, hog = -1;
	long long t0, t, left;

	if (covered_pair_traced(root, &cg))
		goto out;
	pid = spawn_child(cg.leaf, lock_holder_victim, &size, NULL);
	if (pid < 0)
		goto out;
	hog = starve_beside_hog(cg.parent, cg.leaf, pid);
	if (hog < 0)
		goto out;
	sleep_ms(300);
	t0 = now_ns();
	if (kill(pid, SIGKILL))
		goto out;
	t = wait_below(cg.leaf, "memory.current", MB(16), t0, 10 * SECOND);
	if (!trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND))
		goto out;
	left = trace_find("reap_on_kill_unmap", pid, &unmap, 1) == 1 ?
	       trace_field(&unmap, "anon_swap") : -1;
	ksft_print_msg("mmap_lock held: %s; %lld kB left when the unmap began\n",
		       fin.fields, left);
	ksft_print_msg("mmap_lock held: memory back %lld ms after the kill\n",
		       t < 0 ? -1 : t / 1000000);
	/*
	 * The worker waits between tries for the lock.  Once the holder lets
	 * go, the victim's own exit runs in the slices its 1% gets, and may
	 * unmap part of its memory before the worker's next try (on 6.12
	 * once: the reap freed 28 of 64 MiB, the memory back in 651 ms).
	 * The reap must free most of what was left when it began to unmap,
	 * and a fair part of the whole; one that gave up frees nothing.
	 */
	if (t < 0 || left < 0 || !trace_is(&fin, "result", "reaped") ||
	    trace_field(&fin, "freed") < left * 3 / 4 ||
	    trace_field(&fin, "freed") < (long long)size / 1024 / 4)
		goto out;
	ret = trace_field(&fin, "retries") < 1 ? KSFT_SKIP : KSFT_PASS;
out:
	starved_test_end(&cg, hog, pid);
	return ret;
}

/*
 * Killed while it holds mmap_lock for writing, starved of CPU inside
 * mprotect(), the victim is still reaped: the worker tries the lock again
 * until the victim lets go of it on its way out, instead of giving up and
 * leaving the memory to the victim's own exit at 1% of a CPU.  Fails if
 * the reap ends without freeing (the victim then frees its memory only
 * after seconds), or if none of LOCK_HELD_TRIES kills found the lock
 * taken (retries=0 each time: then this test proved nothing).
 */
static int test_mmap_lock_held(const char *root)
{
	int i, ret = KSFT_SKIP;

	if (!have_tracefs())
		return KSFT_SKIP;
	for (i = 0; i < LOCK_HELD_TRIES && ret == KSFT_SKIP; i++) {
		ret = kill_lock_holder(root, MB(64));
		if (ret == KSFT_SKIP)
			ksft_print_msg("kill %d of %d found mmap_lock free\n",
				       i + 1, LOCK_HELD_TRIES);
	}
	if (ret != KSFT_SKIP)
		return ret;
	ksft_print_msg("no kill found mmap_lock taken: nothing proven\n");
	return KSFT_FAIL;
}

#define SHAREDFILE	"reap_on_kill.shared"

/* MAP_SHARED memory of three kinds, each half written by the victim. */
struct shared_maps {
	uint64_t *map[3];	/* MAP_SHARED|MAP_ANONYMOUS, memfd, file */
	size_t size;		/* of each */
	size_t priv;		/* the victim's own private memory */
	int ask, answer;	/* the survivor's pipes */
};

/* The victim's own MAP_PRIVATE hugetlb memory: one huge page. */
#define SHARED_HUGETLB		MB(2)
#define NR_HUGEPAGES		"/proc/sys/vm/nr_hugepages"

static const char * const shared_kind[] = {
	"MAP_SHARED|MAP_ANONYMOUS", "memfd", "file",
};

/* Reports 1 if it got its huge page, 0 if not. */
static void shared_victim(int fd, void *arg)
{
	struct shared_maps *s = arg;
	size_t half = s->size / 2;
	char *priv = map_anon(s->priv), *huge;
	int i;

	memset(priv, 0x5a, s->priv);
	for (i = 0; i < 3; i++)
		fill_pattern(s->map[i] + half / sizeof(uint64_t), half);
	/* Written, so that it has an anon_vma, as private memory does. */
	huge = mmap(NULL, SHARED_HUGETLB, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge != MAP_FAILED)
		memset(huge, 0x5a, SHARED_HUGETLB);
	child_ready(fd, huge != MAP_FAILED);
	spin();
}

/* Field @key (e.g. "RssShmem:") of /proc/@pid/status, in kB, or -1. */
static long status_kb(pid_t pid, const char *key)
{
	char buf[4096], *p;

	if (proc_read_text(pid, false, "status", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/*
 * What the victim of test_shared_survivor maps of the memory a reap must
 * leave: its shmem (MAP_SHARED|MAP_ANONYMOUS, memfd), its file pages (the
 * shared file), its hugetlb page; in kB, each -1 if unreadable.
 */
struct kept_rss {
	long shmem, file, hugetlb;
};

static void read_kept_rss(pid_t pid, struct kept_rss *k)
{
	k->shmem = status_kb(pid, "RssShmem:");
	k->file = status_kb(pid, "RssFile:");
	k->hugetlb = status_kb(pid, "HugetlbPages:");
}

/*
 * Whether @k still holds three quarters of what the victim wrote of the
 * shared memory (half of each of the two shmem mappings and of the file)
 * and its whole huge page.
 */
static bool kept_rss_ok(const struct kept_rss *k, const struct shared_maps *s,
			const char *when)
{
	long half_kb = s->size / 2 / 1024;

	if (k->shmem >= 2 * half_kb * 3 / 4 && k->file >= half_kb * 3 / 4 &&
	    k->hugetlb >= (long)(SHARED_HUGETLB / 1024))
		return true;
	ksft_print_msg("%s, the victim maps RssShmem %ld kB, RssFile %ld kB, HugetlbPages %ld kB; want >= %ld, %ld, %ld kB\n",
		       when, k->shmem, k->file, k->hugetlb, 2 * half_kb * 3 / 4,
		       half_kb * 3 / 4, (long)(SHARED_HUGETLB / 1024));
	return false;
}

/* Lives on in the victim's cgroup; checks all three when asked. */
static void shared_survivor(int fd, void *arg)
{
	struct shared_maps *s = arg;
	long bad[3];
	char c;
	int i;

	child_ready(fd, 0);
	if (read(s->ask, &c, 1) != 1)
		_exit(2);
	for (i = 0; i < 3; i++)
		bad[i] = pattern_bad_word(s->map[i], s->map[i], s->size);
	if (write(s->answer, bad, sizeof(bad)) != sizeof(bad))
		_exit(3);
	_exit(0);
}

/* The file as on disk, read with O_DIRECT past the page cache. */
static int check_file_on_disk(const uint64_t *was_at, size_t size)
{
	uint64_t *buf = NULL;
	ssize_t n = -1;
	long i;
	int fd;

	fd = open(SHAREDFILE, O_RDONLY | O_DIRECT);
	if (fd >= 0 && !posix_memalign((void **)&buf, page_size, size))
		n = pread(fd, buf, size, 0);
	if (n != (ssize_t)size) {
		ksft_print_msg("O_DIRECT read of %s: %zd bytes (%s)\n",
			       SHAREDFILE, n, strerror(errno));
		n = -1;
		goto out;
	}
	i = pattern_bad_word(buf, was_at, size);
	if (i >= 0) {
		ksft_print_msg("%s on disk differs at word %ld\n", SHAREDFILE,
			       i);
		n = -1;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return n < 0 ? -1 : 0;
}

/*
 * A survivor in the same covered cgroup, never killed, shares three kinds
 * of MAP_SHARED memory with the victim: shmem behind MAP_ANONYMOUS, a
 * memfd, and a file on the scratch disk.  We fill the first half of each
 * (so the pages are charged to us, not to the victim), the victim the
 * second half.  The victim also has a MAP_PRIVATE hugetlb page it wrote.
 * After the victim, starved, is reaped, the survivor's and our view of
 * all three hold the whole pattern, and so does the file on disk.
 *
 * The reap leaves hugetlb, PFN and shared mappings to the victim's exit
 * (oom_reap_vma_wanted(), reap_vma_worth_it()): shared anonymous memory
 * is shmem, and a private hugetlb mapping that was written has an
 * anon_vma.  Unmapping them would free nothing the survivor could see,
 * so that is checked where it shows: the victim, reaped but not yet
 * exited, must still map them (RssShmem, RssFile, HugetlbPages of its
 * /proc/PID/status).  Fails if the reap unmapped any of them, dropped or
 * freed pages the survivor still maps, or lost the victim's writes to
 * the file; also if it took the sharing of memory for sharing of the
 * address space and reaped nothing (result=shared, no kill_reap), or if
 * the victim's exit, not the reap, freed its private memory.
 */
static int test_shared_survivor(const char *root)
{
	struct shared_maps s = { .size = MB(8), .priv = MB(32) };
	int ret = KSFT_FAIL, status, i, memfd = -1, filefd = -1;
	int ask[2] = { -1, -1 }, answer[2] = { -1, -1 };
	char huge_was[32] = "", huge_now[32];
	const uint64_t *file_was_at = NULL;
	pid_t pid = -1, survivor = -1, hog = -1;
	struct kept_rss before, after;
	size_t half = s.size / 2;
	struct trace_event fin;
	struct pair cg = { };
	uintptr_t huge = 0;
	long bad[3], usage;

	if (!have_tracefs())
		return KSFT_SKIP;
	/* A huge page for the victim, given back at the end. */
	if (read_text(NR_HUGEPAGES, huge_was, sizeof(huge_was)) <= 0) {
		ksft_print_msg("cannot read %s\n", NR_HUGEPAGES);
		return KSFT_FAIL;
	}
	snprintf(huge_now, sizeof(huge_now), "%ld", atol(huge_was) + 1);
	write_text(NR_HUGEPAGES, huge_now, strlen(huge_now));
	memfd = memfd_create("reap_on_kill", 0);
	filefd = open(SHAREDFILE, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (memfd < 0 || filefd < 0 || ftruncate(memfd, s.size) ||
	    ftruncate(filefd, s.size) || pipe(ask) || pipe(answer)) {
		ksft_print_msg("cannot set up the shared memory: %s\n",
			       strerror(errno));
		goto out;
	}
	s.map[0] = mmap(NULL, s.size, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	s.map[1] = mmap(NULL, s.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			memfd, 0);
	s.map[2] = mmap(NULL, s.size, PROT_READ | PROT_WRITE, MAP_SHARED,
			filefd, 0);
	for (i = 0; i < 3; i++) {
		if (s.map[i] == MAP_FAILED) {
			ksft_print_msg("mmap %s: %s\n", shared_kind[i],
				       strerror(errno));
			goto out;
		}
		fill_pattern(s.map[i], half);
		memset((char *)s.map[i] + half, 0, half);
	}
	file_was_at = s.map[2];
	s.ask = ask[0];
	s.answer = answer[1];
	if (covered_pair_traced(root, &cg))
		goto out;
	survivor = spawn_child(cg.leaf, shared_survivor, &s, NULL);
	pid = spawn_child(cg.leaf, shared_victim, &s, &huge);
	if (survivor < 0 || pid < 0)
		goto out;
	if (!huge) {
		ksft_print_msg("the victim got no hugetlb page (%s: %s)\n",
			       NR_HUGEPAGES, huge_now);
		goto out;
	}
	for (i = 0; i < 3; i++)
		if (pattern_bad_word(s.map[i], s.map[i], s.size) >= 0) {
			ksft_print_msg("the victim did not fill the %s memory\n",
				       shared_kind[i]);
			goto out;
		}
	read_kept_rss(pid, &before);
	if (!kept_rss_ok(&before, &s, "before the kill"))
		goto out;
	hog = kill_starved(cg.parent, cg.leaf, pid, SIGKILL, &usage);
	if (usage < 0 || !reaped_at_least(pid, s.priv / 1024 * 3 / 4, &fin) ||
	    !expect_reaps(cg.leaf, 1) ||
	    wait_below(cg.leaf, "memory.current", MB(8), now_ns(),
		       10 * SECOND) < 0)
		goto out;
	/* The victim is reaped but has not run its exit yet. */
	read_kept_rss(pid, &after);
	if (!kept_rss_ok(&after, &s, "after the reap") ||
	    ran_since(cg.leaf, usage))
		goto out;
	if (write(ask[1], "?", 1) != 1 ||
	    read(answer[0], bad, sizeof(bad)) != sizeof(bad)) {
		ksft_print_msg("no answer from the survivor\n");
		goto out;
	}
	for (i = 0; i < 3; i++) {
		long ours = pattern_bad_word(s.map[i], s.map[i], s.size);

		if (bad[i] >= 0 || ours >= 0) {
			ksft_print_msg("%s: bad word at %ld for the survivor, %ld for us\n",
				       shared_kind[i], bad[i], ours);
			goto out;
		}
	}
	end_starve(cg.parent, cg.leaf, hog);
	hog = -1;
	if (unthrottle_and_reap(cg.leaf, pid, &status) ||
	    waitpid(survivor, &status, 0) != survivor)
		goto out;
	pid = -1;
	survivor = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		ksft_print_msg("the survivor ended with status %#x\n", status);
		goto out;
	}
	/* Write back and drop our mapping too, then read the disk. */
	if (msync(s.map[2], s.size, MS_SYNC) || munmap(s.map[2], s.size) ||
	    fsync(filefd)) {
		ksft_print_msg("writing %s back: %s\n", SHAREDFILE,
			       strerror(errno));
		goto out;
	}
	s.map[2] = MAP_FAILED;
	if (check_file_on_disk(file_was_at, s.size))
		goto out;
	ret = KSFT_PASS;
out:
	if (cg.leaf)
		end_starve(cg.parent, cg.leaf, hog);
	if (pid > 0) {
		kill(pid, SIGKILL);
		unthrottle_and_reap(cg.leaf, pid, &status);
	}
	if (survivor > 0) {
		kill(survivor, SIGKILL);
		waitpid(survivor, &status, 0);
	}
	trace_end();
	pair_destroy(&cg);
	write_text(NR_HUGEPAGES, huge_was, strlen(huge_was));
	for (i = 0; i < 3; i++)
		if (s.map[i] && s.map[i] != MAP_FAILED)
			munmap(s.map[i], s.size);
	for (i = 0; i < 2; i++) {
		if (ask[i] >= 0)
			close(ask[i]);
		if (answer[i] >= 0)
			close(answer[i]);
	}
	if (memfd >= 0)
		close(memfd);
	if (filefd >= 0)
		close(filefd);
	unlink(SHAREDFILE);
	return ret;
}

struct group_exit {
	size_t size;
	int go;		/* on a byte here, the main thread calls exit_group() */
	int block;	/* the second thread blocks reading this */
	bool spin;	/* instead, both threads spin on the last CPU */
};

/* In the victim: the second thread's tid, once it runs. */
static pid_t second_tid;

static void *block_fn(void *arg)
{
	const struct group_exit *g = arg;
	char c;

	__atomic_store_n(&second_tid, syscall(SYS_gettid), __ATOMIC_RELEASE);
	if (g->spin)
		spin();
	if (read(g->block, &c, 1) < 0)
		return NULL;
	return NULL;
}

/* Two threads; reports the second one's tid when both run. */
static void exit_group_victim(int fd, void *arg)
{
	struct group_exit *g = arg;
	char *buf = map_anon(g->size), c;
	pthread_t t;

	memset(buf, 0x5a, g->size);
	/* Both threads where kill_starved() starves the process. */
	if (g->spin && pin_last_cpu(0))
		_exit(2);
	if (pthread_create(&t, NULL, block_fn, g))
		_exit(2);
	while (!__atomic_load_n(&second_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	child_ready(fd, second_tid);
	if (g->spin)
		spin();
	if (read(g->go, &c, 1) != 1)
		_exit(3);
	syscall(SYS_exit_group, 7);
}

/*
 * One race: the leader calls exit_group(7) while the other thread sleeps,
 * throttled to 1%; SIGKILL follows @delay_ms later, or, if @delay_ms < 0,
 * once the leader is a zombie, i.e. past do_group_exit().  Which one
 * started the group exit decides, and the reaps must match: none after
 * exit status 7, exactly one (queued and finished) after SIGKILL.  The
 * zombie round must see exit status 7.  What freed the memory is not
 * asked here: the exit runs at once (see group_kill_storm()).
 */
static int group_exit_round(struct pair *cg, int delay_ms)
{
	struct group_exit g = { .size = MB(32) };
	int go[2] = { -1, -1 }, block[2] = { -1, -1 };
	int ret = -1, status, queued, finished;
	long long end = now_ns() + 10 * SECOND;
	struct trace_event fin;
	long before, reaps;
	bool exited, killed;
	pid_t pid;

	if (pipe(go) || pipe(block))
		goto out;
	g.go = go[0];
	g.block = block[0];
	before = events(cg->leaf, "memory.events", "kill_reap ");
	pid = spawn_child(cg->leaf, exit_group_victim, &g, NULL);
	if (pid < 0)
		goto out;
	if (cg_write(cg->leaf, "cpu.max", THROTTLE) ||
	    write(go[1], "g", 1) != 1) {
		kill(pid, SIGKILL);
		unthrottle_and_reap(cg->leaf, pid, &status);
		goto out;
	}
	if (delay_ms < 0) {
		while (proc_state(pid) != 'Z' && now_ns() < end)
			usleep(1000);
		if (proc_state(pid) != 'Z')
			ksft_print_msg("the leader did not become a zombie in 10 s\n");
	} else {
		sleep_ms(delay_ms);
	}
	kill(pid, SIGKILL);
	if (unthrottle_and_reap(cg->leaf, pid, &status))
		goto out;

	exited = WIFEXITED(status) && WEXITSTATUS(status) == 7;
	killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	if (queued > 0)
		trace_wait("reap_on_kill_finish", pid, &fin, 10 * SECOND);
	/* Time for a second (wrong) reap to show up. */
	sleep_ms(200);
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	finished = trace_find("reap_on_kill_finish", pid, &fin, 1);
	reaps = events(cg->leaf, "memory.events", "kill_reap ") - before;
	ksft_print_msg("exit_group, then SIGKILL %s: %s; %d reaps queued, %d finished%s%s, kill_reap +%ld\n",
		       delay_ms < 0 ? "on the zombie leader" :
		       delay_ms ? "after a few ms" : "at once",
		       exited ? "exit status 7" : killed ? "killed" : "?",
		       queued, finished, finished > 0 ? ": " : "",
		       finished > 0 ? fin.fields : "", reaps);
	if (!exited && !killed) {
		ksft_print_msg("status %#x\n", status);
		goto out;
	}
	/* Dropped by prepare_signal(): nothing may be queued. */
	if (exited && (queued != 0 || finished != 0 || reaps != 0))
		goto out;
	/* complete_signal() started the group exit: exactly one reap. */
	if (killed && (queued != 1 || finished != 1 || reaps < 0 || reaps > 1))
		goto out;
	if (delay_ms < 0 && !exited)
		goto out;
	ret = 0;
out:
	if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	if (block[0] >= 0) {
		close(block[0]);
		close(block[1]);
	}
	return ret;
}

/*
 * The deterministic round: a two-threaded victim, both threads spinning
 * and starved, gets SIGKILL, and then, while its group exit is under way,
 * a SIGKILL to its other thread (tgkill()), a SIGTERM, a cgroup.kill and
 * a SIGKILL again.  The first kill starts the group exit
 * (complete_signal()), which queues the one reap the process gets; every
 * later signal is dropped (prepare_signal()).  Exactly one reap is queued
 * and finished, kill_reap counts one, and that reap, not the victim's
 * exit (it did not run, see ran_since()), freed three quarters of its
 * memory.
 */
static int group_kill_storm(struct pair *cg)
{
	struct group_exit g = { .size = MB(32), .spin = true };
	int ret = -1, status, queued = -1, finished = -1;
	long before, reaps = -1, usage;
	struct trace_event fin;
	pid_t pid, hog = -1;
	uintptr_t tid = 0;

	before = events(cg->leaf, "memory.events", "kill_reap ");
	pid = spawn_child(cg->leaf, exit_group_victim, &g, &tid);
	if (pid < 0)
		return -1;
	hog = kill_starved(cg->parent, cg->leaf, pid, SIGKILL, &usage);
	if (usage < 0)
		goto out;
	/* (The other thread may be gone already: ESRCH.) */
	if ((syscall(SYS_tgkill, pid, (pid_t)tid, SIGKILL) && errno != ESRCH) ||
	    kill(pid, SIGTERM) || cg_write(cg->leaf, "cgroup.kill", "1") ||
	    kill(pid, SIGKILL)) {
		ksft_print_msg("the later kills failed: %s\n", strerror(errno));
		goto out;
	}
	if (!reaped_at_least(pid, g.size / 1024 * 3 / 4, &fin) ||
	    ran_since(cg->leaf, usage))
		goto count;
	/* Time for a second (wrong) reap to show up. */
	sleep_ms(500);
	ret = 0;
count:
	queued = trace_find("reap_on_kill_queue", pid, NULL, 0);
	finished = trace_find("reap_on_kill_finish", pid, NULL, 0);
	reaps = events(cg->leaf, "memory.events", "kill_reap ") - before;
	if (queued != 1 || finished != 1 || reaps != 1)
		ret = -1;
out:
	ksft_print_msg("five kills of a starved process: %d reaps queued, %d finished, kill_reap +%ld\n",
		       queued, finished, reaps);
	end_starve(cg->parent, cg->leaf, hog);
	kill(pid, SIGKILL);
	if (!waitpid_timeout(pid, &status, TIMEOUT))
		ret = -1;
	else if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		ksft_print_msg("status %#x, want SIGKILL\n", status);
		ret = -1;
	}
	return ret;
}

/*
 * SIGKILL to a process whose exit_group() is under way, and kills that
 * follow the one that started the group exit.  do_group_exit(), like
 * complete_signal() for a fatal signal, sets SIGNAL_GROUP_EXIT under
 * siglock, and from then on prepare_signal() drops every signal but a
 * core dump's SIGKILL: a process gets one reap at most, queued where its
 * group exit starts (the reap hangs on its signal_struct, and a second
 * one would hit the WARN_ON_ONCE() in __reap_on_kill_queue()).  Fails if
 * a kill of an exiting process queued a reap, if any process got two, or
 * if the reap of the starved process of group_kill_storm() was not what
 * freed its memory.
 */
static int test_kill_in_exit_group(const char *root)
{
	static const int delays[] = { -1, 0, 5, 50 };
	struct pair cg = { };
	int ret = KSFT_FAIL;
	unsigned int i;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (covered_pair_traced(root, &cg))
		goto out;
	if (group_kill_storm(&cg))
		goto out;
	for (i = 0; i < ARRAY_SIZE(delays); i++)
		if (group_exit_round(&cg, delays[i]))
			goto out;
	ret = KSFT_PASS;
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

/*
 * Holding the reap worker off, to order the kill, the victim's exit and
 * the reap as a test needs.  Unbound workqueues are confined to the last
 * CPU, where a SCHED_FIFO thread of ours spins; this thread and a victim
 * that must run stay on CPU 0.  A reap queued meanwhile waits for
 * release_worker(), but not reliably longer than HOLD_MS: a CPU busy with
 * RT tasks still runs CFS tasks for 50 ms of every second (RT throttling,
 * the deferred fair server), so the tests check from the trace that the
 * worker really had not started.
 */
#define WQ_CPUMASK	"/sys/devices/virtual/workqueue/cpumask"
#define HOLD_MS		700

struct worker_hold {
	bool held, hogging;
	int cpu;		/* the CPU the workers are confined to */
	char cpumask[64];	/* the unbound cpumask to restore */
	cpu_set_t affinity;	/* this thread's, to restore */
	pthread_t hog;
	int running, stop;
	long long deadline;
};

static void *hog_fn(void *arg)
{
	struct worker_hold *h = arg;

	__atomic_store_n(&h->running, 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED) &&
	       now_ns() < h->deadline)
		;
	return NULL;
}

static void release_worker(struct worker_hold *h)
{
	if (h->hogging) {
		__atomic_store_n(&h->stop, 1, __ATOMIC_RELAXED);
		pthread_join(h->hog, NULL);
		h->hogging = false;
	}
	if (h->held) {
		if (write_text(WQ_CPUMASK, h->cpumask, strlen(h->cpumask)) < 0)
			ksft_print_msg("cannot restore %s to %s", WQ_CPUMASK,
				       h->cpumask);
		sched_setaffinity(0, sizeof(h->affinity), &h->affinity);
		h->held = false;
	}
}

/*
 * Hold reaps off; @victim is pinned to CPU 0 if it must run meanwhile
 * (@victim_runs), else to the spinning CPU, where it cannot.
 */
static int hold_worker(struct worker_hold *h, pid_t victim, bool victim_runs)
{
	struct sched_param prio = { .sched_priority = 1 };
	long long end = now_ns() + SECOND;
	pthread_attr_t attr;
	char mask[16];
	cpu_set_t set;
	int err;

	h->cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	if (read_text(WQ_CPUMASK, h->cpumask, sizeof(h->cpumask)) <= 0 ||
	    sched_getaffinity(0, sizeof(h->affinity), &h->affinity)) {
		ksft_print_msg("cannot read %s or our affinity\n", WQ_CPUMASK);
		return -1;
	}
	snprintf(mask, sizeof(mask), "%x", 1 << h->cpu);
	if (pin(0, 0) || pin(victim, victim_runs ? 0 : h->cpu) ||
	    write_text(WQ_CPUMASK, mask, strlen(mask)) < 0) {
		ksft_print_msg("cannot confine unbound workqueues to CPU %d: %s\n",
			       h->cpu, strerror(errno));
		sched_setaffinity(0, sizeof(h->affinity), &h->affinity);
		return -1;
	}
	h->held = true;

	CPU_ZERO(&set);
	CPU_SET(h->cpu, &set);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &prio);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	h->running = 0;
	h->stop = 0;
	h->deadline = now_ns() + HOLD_MS * 1000000LL;
	err = pthread_create(&h->hog, &attr, hog_fn, h);
	pthread_attr_destroy(&attr);
	if (err) {
		ksft_print_msg("cannot start a SCHED_FIFO thread: %s\n",
			       strerror(err));
		release_worker(h);
		return -1;
	}
	h->hogging = true;
	while (!__atomic_load_n(&h->running, __ATOMIC_RELAXED) &&
	       now_ns() < end)
		usleep(100);
	return 0;
}

/* Whether the worker has not begun the reap of pid yet (printed if it has). */
static bool reap_not_started(pid_t pid)
{
	struct trace_event start;

	if (trace_find("reap_on_kill_start", pid, &start, 1) == 0)
		return true;
	ksft_print_msg("the reap started while held off: %s\n", start.fields);
	return false;
}

struct exit_victim {
	size_t size;
	int go;		/* on a byte here, arm a 1 ms SIGALRM and wait */
};

static void exit_victim(int fd, void *arg)
{
	struct itimerval it = { .it_value = { 0, 1000 } };
	struct exit_victim *v = arg;
	uint64_t *buf = (uint64_t *)map_anon(v->size);
	char c;

	fill_pattern(buf, v->size);
	child_ready(fd, (uintptr_t)buf);
	if (read(v->go, &c, 1) != 1)
		_exit(3);
	setitimer(ITIMER_REAL, &it, NULL);
	for (;;)
		pause();
}

struct holder {
	pid_t victim;
	uintptr_t from;		/* the victim's buffer */
	uint64_t *to;		/* MAP_SHARED, so that we see the copy */
	size_t size;
	int *done;		/* MAP_SHARED: pread() returned */
};

/* Reads the victim's memory in one pread(), at 1 ms of CPU per second. */
static void holder_main(int fd, void *arg)
{
	struct holder *h = arg;
	char path[64];
	int mem;

	snprintf(path, sizeof(path), "/proc/%d/mem", h->victim);
	mem = open(path, O_RDONLY);
	if (mem < 0)
		_exit(2);
	child_ready(fd, 0);
	if (pread(mem, h->to, h->size, h->from) < 0)
		__atomic_store_n(h->done, -errno, __ATOMIC_RELAXED);
	else
		__atomic_store_n(h->done, 1, __ATOMIC_RELAXED);
	_exit(0);
}

/*
 * Every thread of the victim passed exit_mm() while a /proc/pid/mem read
 * keeps its address space alive, big and unreaped: the case that
 * reap_on_kill_exit_mm() exists for.
 *
 * The holder: mem_rw() holds mm_users from before its first page to after
 * its last, and a single pread() of 64 MiB at cpu.max 0.1% takes minutes,
 * in the kernel, between pages (6.12 throttles CFS bandwidth in the
 * kernel too).  A userfaultfd range would hold a reader for good, but only
 * process_vm_readv() could wait on it (its GUP may drop mmap_lock; that of
 * /proc/pid/mem may not, and handle_userfault() fails a fault without
 * FAULT_FLAG_ALLOW_RETRY), and the guest kernel has no CONFIG_USERFAULTFD.
 *
 * The kill: the victim's own itimer, from hard-IRQ context, where the kill
 * path never pins the mm (mm_pinned=0).  The worker is held off until the
 * victim is a zombie, so no task has the mm by then and only the pin that
 * exit_mm() made can hand it to the worker.  Then the memory must come
 * back while the holder still sits in its pread().
 *
 * Fails without reap_on_kill_exit_mm(): reap_get_mm() finds no task with
 * an mm, the reap ends "exited", and the 64 MiB stay until the holder lets
 * go.  Also fails if the worker could not be held off (printed).
 */
static int test_mm_held_past_exit(const char *root)
{
	struct exit_victim v = { .size = MB(64) };
	struct holder h = { .size = MB(64) };
	struct trace_event queue, fin;
	struct worker_hold hold = { };
	int ret = KSFT_FAIL, status, go[2] = { -1, -1 };
	long cur, reaps, done, zombie_ms = -1;
	char *holder_cg = NULL;
	pid_t pid = -1, holder = -1;
	struct pair cg = { };
	long long t0, t;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ksft_print_msg("holding the worker off needs 2 CPUs\n");
		return KSFT_SKIP;
	}
	if (!have_tracefs())
		return KSFT_SKIP;
	h.to = mmap(NULL, h.size, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	h.done = mmap(NULL, page_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h.to == MAP_FAILED || h.done == MAP_FAILED || pipe(go))
		goto out;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	holder_cg = cg_name(cg.parent, "holder");
	/* 1% to get going, 0.1% once it reads. */
	if (!holder_cg || cg_create(holder_cg) ||
	    cg_write(holder_cg, "cpu.max", THROTTLE) || trace_begin(reap_events))
		goto out;
	v.go = go[0];
	pid = spawn_child(cg.leaf, exit_victim, &v, &h.from);
	if (pid < 0)
		goto out;
	h.victim = pid;
	holder = spawn_child(holder_cg, holder_main, &h, NULL);
	if (holder < 0)
		goto out;
	/* Past mmget_not_zero() once the first page arrived. */
	t0 = now_ns();
	while (__atomic_load_n(&h.to[0], __ATOMIC_RELAXED) !=
	       pattern_at((void *)h.from) && now_ns() < t0 + 30 * SECOND)
		usleep(1000);
	if (cg_write(holder_cg, "cpu.max", CRAWL) ||
	    h.to[0] != pattern_at((void *)h.from) || *h.done) {
		ksft_print_msg("the holder did not start reading (done %d)\n",
			       *h.done);
		goto out;
	}

	if (hold_worker(&hold, pid, true))
		goto out;
	t0 = now_ns();
	if (write(go[1], "g", 1) != 1)
		goto out;
	while (not_exited(pid) && now_ns() < hold.deadline - 100000000LL)
		usleep(1000);
	if (!not_exited(pid))
		zombie_ms = (now_ns() - t0) / 1000000;
	cur = cg_read_long(cg.leaf, "memory.current");
	reaps = events(cg.leaf, "memory.events", "kill_reap ");
	done = *h.done;
	if (zombie_ms < 0 || !reap_not_started(pid) || reaps ||
	    cur < (long)v.size * 3 / 4 || done) {
		ksft_print_msg("not set up: zombie after %ld ms (-1: no), memory.current %ld,\n",
			       zombie_ms, cur);
		ksft_print_msg("kill_reap %ld, holder done %ld\n", reaps, done);
		goto out;
	}
	release_worker(&hold);

	t0 = now_ns();
	t = wait_below(cg.leaf, "memory.current", MB(16), t0, 10 * SECOND);
	done = *h.done;
	if (t < 0)
		goto out;
	if (done) {
		ksft_print_msg("the holder let go (%ld) before the memory was back\n",
			       done);
		goto out;
	}
	if (trace_find("reap_on_kill_queue", pid, &queue, 1) != 1 ||
	    !trace_is(&queue, "mm_pinned", "0")) {
		ksft_print_msg("want one reap_on_kill_queue with mm_pinned=0: %s\n",
			       queue.fields);
		goto out;
	}
	if (!reaped_at_least(pid, v.size / 1024 * 3 / 4, &fin) ||
	    !expect_reaps(cg.leaf, 1))
		goto out;
	ksft_print_msg("zombie after %ld ms with its mm held: %ld kB charged\n",
		       zombie_ms, cur / 1024);
	ksft_print_msg("the reap freed %lld kB, memory back in %lld ms, holder reading\n",
		       trace_field(&fin, "freed"), t / 1000000);
	ret = KSFT_PASS;
out:
	release_worker(&hold);
	if (holder > 0) {
		cg_write(holder_cg, "cpu.max", "max");
		kill(holder, SIGKILL);
		waitpid(holder, &status, 0);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	trace_end();
	cg_destroy_free(holder_cg);
	pair_destroy(&cg);
	if (go[0] >= 0) {
		close(go[0]);
		close(go[1]);
	}
	if (h.to != MAP_FAILED && h.to)
		munmap(h.to, h.size);
	if (h.done != MAP_FAILED && h.done)
		munmap(h.done, page_size);
	return ret;
}

/* Whether /proc/pid/cgroup names @cgroup (a path under @root). */
static bool in_cgroup(const char *root, const char *cgroup, pid_t pid)
{
	char buf[PATH_MAX], want[PATH_MAX];

	snprintf(want, sizeof(want), "0::%s\n", cgroup + strlen(root));
	return proc_read_text(pid, false, "cgroup", buf, sizeof(buf)) > 0 &&
	       !strcmp(buf, want);
}

static void quota_eater(int fd, void *arg)
{
	child_ready(fd, 0);
	spin();
}

/*
 * One round of test_migrated_before_reap(): kill, move the victim from
 * the covered leaf to the uncovered sibling "moved", and if @remove,
 * remove the emptied leaf, all before the worker starts.
 */
static int migrate_round(const char *root, bool remove)
{
	/* Spinning: no lag owed to it lets it run its exit at once. */
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE, .spin = true };
	struct trace_event queue, fin;
	struct worker_hold hold = { };
	int ret = -1, status, err;
	long leaf_reaps, moved_reaps, parent_reaps, unfreed;
	pid_t pid = -1, eater = -1, hog = -1;
	struct pair cg = { };
	char *moved = NULL;
	struct stat st;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    stat(cg.leaf, &st))
		goto out;
	moved = cg_name(cg.parent, "moved");
	if (!moved || cg_create(moved) || trace_begin(reap_events))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	eater = spawn_child(moved, quota_eater, NULL, NULL);
	if (pid < 0 || eater < 0)
		goto out;
	/*
	 * Once moved, the victim could run its exit before the worker: not
	 * with the new cgroup's quota for this second used up by another.
	 * Until then it sits on the spinning CPU.
	 */
	if (crawl_until_throttled(moved) < 0)
		goto out;
	/*
	 * On mainline, cpu.max no longer holds a killed task back (it is
	 * parked only on its way to user space), and the worker's hold
	 * leaves CFS a share of the held CPU: starve the victim beside a busy
	 * loop too, from before the kill, so that the reap is what frees.
	 */
	hog = starve_hard(cg.parent, moved, pid);
	if (hog < 0 || hold_worker(&hold, pid, false) || kill(pid, SIGKILL))
		goto out;
	if (cg_enter(moved, pid) || !in_cgroup(root, moved, pid)) {
		ksft_print_msg("a killed victim that has not run could not be moved: %s\n",
			       strerror(errno));
		goto out;
	}
	if (remove && rmdir(cg.leaf)) {
		ksft_print_msg("rmdir of the emptied cgroup: %s\n",
			       strerror(errno));
		goto out;
	}
	if (!reap_not_started(pid))
		goto out;
	release_worker(&hold);

	if (!expect_reaps(remove ? moved : cg.leaf, 1) ||
	    !reaped_at_least(pid, a.size / 1024 * 3 / 4, &fin))
		goto out;
	/*
	 * What the reap freed must be uncharged from the parent.  A victim
	 * that got a slice of its CPU since the kill may have begun its own
	 * exit_mmap(): pages it took off the page tables wait in its
	 * mmu_gather (up to some 40 MiB) until it runs again, after
	 * end_starve().  Those are not the reap's to free.
	 */
	unfreed = (long)a.size - trace_field(&fin, "freed") * 1024;
	if (wait_below(cg.parent, "memory.current",
		       MB(16) + (unfreed > 0 ? unfreed : 0), now_ns(),
		       10 * SECOND) < 0)
		goto out;
	err = trace_find("reap_on_kill_queue", pid, &queue, 1) != 1 ||
	      trace_field(&queue, "memcg_id") != (long long)st.st_ino ||
	      trace_field(&fin, "memcg_id") != (long long)st.st_ino;
	leaf_reaps = remove ? 0 : events(cg.leaf, "memory.events", "kill_reap ");
	moved_reaps = events(moved, "memory.events", "kill_reap ");
	parent_reaps = events(cg.parent, "memory.events", "kill_reap ");
	ksft_print_msg("moved%s before the reap, which freed %lld kB\n",
		       remove ? " and old cgroup removed" : "",
		       trace_field(&fin, "freed"));
	ksft_print_msg("kill_reap: old cgroup %ld, new %ld, parent %ld; memcg_id %lld, old %llu\n",
		       leaf_reaps, moved_reaps, parent_reaps,
		       trace_field(&fin, "memcg_id"),
		       (unsigned long long)st.st_ino);
	if (err || leaf_reaps != !remove || moved_reaps != remove ||
	    parent_reaps != 1)
		goto out;
	end_starve(cg.parent, moved, hog);
	hog = -1;
	if (unthrottle_and_reap(moved, pid, &status))
		goto out;
	pid = -1;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		ksft_print_msg("victim ended with status %#x\n", status);
		goto out;
	}
	ret = 0;
out:
	release_worker(&hold);
	if (hog > 0)
		end_starve(cg.parent, moved, hog);
	if (pid > 0) {
		kill(pid, SIGKILL);
		unthrottle_and_reap(moved, pid, &status);
	}
	if (eater > 0) {
		kill(eater, SIGKILL);
		unthrottle_and_reap(moved, eater, &status);
	}
	trace_end();
	cg_destroy_free(moved);
	pair_destroy(&cg);
	return ret;
}

/*
 * The victim leaves its cgroup between the kill and the reap: moved to a
 * sibling that is not covered, and in a second round its old cgroup then
 * removed.  A killed process that has not run since the kill has no
 * PF_EXITING yet, so cgroup_migrate_add_task() still moves it (an exiting
 * one or a zombie it silently skips).  The reap was decided at the kill:
 * it still happens, and both the trace and kill_reap name the old cgroup
 * (memcg_id from the kill), where the pages stay charged; once the old
 * cgroup is removed, kill_reap goes to the victim's new one, which has no
 * reap_on_kill of its own.  The pages the reap freed are uncharged from the
 * parent.  Fails if the reap was lost, counted twice or in the wrong
 * cgroup, or the memory it freed stayed charged.
 */
static int test_migrated_before_reap(const char *root)
{
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		ksft_print_msg("holding the worker off needs 2 CPUs\n");
		return KSFT_SKIP;
	}
	if (!have_tracefs())
		return KSFT_SKIP;
	if (migrate_round(root, false) || migrate_round(root, true))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/*
 * An OOM kill of a memory.oom.group cgroup kills every process in it,
 * each through __oom_kill_process() and complete_signal(): each must be
 * reaped, once, and each reap must give back its victim's memory.  The
 * three victims are starved (kill_starved(), all three on its CPU), so
 * none can run its exit, and the OOM reaper waits two seconds before it
 * looks: every finish event must say result=reaped with three quarters of
 * its victim freed, before any victim ran again (ran_since()).  The
 * chosen victim is killed first, then again with the group (a SIGKILL
 * that prepare_signal() drops), so oom_kill reads 3 or 4; the reaps queued
 * must be 3.  Fails if only the chosen victim was reaped, or none, or one
 * twice, or a reap left its victim's memory to the victim's exit.
 */
static int test_oom_group(const char *root)
{
	struct victim_args a = { .size = MB(32), .mode = V_PAUSE, .spin = true };
	int ret = KSFT_FAIL, i, n = 0, status, queued = -1, finished = -1;
	long oom_kills, group_kills, reaps, usage = -1;
	struct trace_event fin;
	struct pair cg = { };
	pid_t pid[3], hog = -1;

	if (!have_tracefs())
		return KSFT_SKIP;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1") ||
	    cg_write(cg.leaf, "memory.oom.group", "1") ||
	    trace_begin(reap_events))
		goto out;
	/* No swap to reclaim into, where swap exists. */
	cg_write(cg.leaf, "memory.swap.max", "0");
	for (n = 0; n < 3; n++) {
		pid[n] = spawn_victim(cg.leaf, &a);
		if (pid[n] < 0)
			goto reap;
	}
	for (i = 1; i < n; i++)
		if (pin_last_cpu(pid[i]))
			goto reap;
	hog = kill_starved(cg.parent, cg.leaf, pid[0], 0, &usage);
	if (usage < 0)
		goto reap;
	/*
	 * Below usage with nothing to reclaim: the OOM killer kills, from
	 * this write, which returns once usage is below the limit.
	 */
	cg_write(cg.leaf, "memory.max", "16M");
	for (i = 0; i < n; i++)
		if (!reaped_at_least(pid[i], a.size / 1024 * 3 / 4, &fin))
			goto reap;
	if (ran_since(cg.leaf, usage))
		goto reap;
	/* Give a fourth (wrong) reap time to show up. */
	sleep_ms(200);
	oom_kills = events(cg.leaf, "memory.events", "oom_kill ");
	group_kills = events(cg.leaf, "memory.events", "oom_group_kill ");
	reaps = events(cg.leaf, "memory.events", "kill_reap ");
	queued = trace_find("reap_on_kill_queue", 0, NULL, 0);
	finished = trace_find("reap_on_kill_finish", 0, NULL, 0);
	ksft_print_msg("oom_kill %ld/%ld group; reaps %d queued %d finished; kill_reap %ld\n",
		       oom_kills, group_kills, queued, finished, reaps);
	if (oom_kills >= 3 && oom_kills <= 4 && group_kills == 1 &&
	    queued == 3 && finished == 3 && reaps == 3)
		ret = KSFT_PASS;
reap:
	end_starve(cg.parent, cg.leaf, hog);
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &status, 0);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
			ksft_print_msg("victim %d ended with status %#x\n", i,
				       status);
			ret = KSFT_FAIL;
		}
	}
out:
	trace_end();
	pair_destroy(&cg);
	return ret;
}

/*
 * Delegation.  A cgroup delegated to an unprivileged user (its directory,
 * cgroup.procs, cgroup.threads and cgroup.subtree_control chown'd to the
 * user, as systemd and cgroup-v2.rst do it) lets the user create children
 * and set memory.reap_on_kill there: the files of a new cgroup belong to
 * its creator.  The delegated cgroup's own memory.* files stay with the
 * parent's owner, other cgroups are out of reach, and an ancestor's 1
 * cannot be switched off from below.
 */
#define NOBODY	65534

enum deleg_step {
	D_OK, D_DROP, D_USERNS, D_ENABLE, D_MKDIR, D_SET_OWN, D_BAD_VALUE,
	D_CLEAR_OWN, D_SET_DELEGATED, D_SET_OTHER,
};

static const char * const deleg_step_name[] = {
	"", "drop privileges", "enter a user namespace",
	"enable memory in its cgroup.subtree_control", "create a child",
	"set its child's file to 1", "get EINVAL for 2",
	"write 0 to its child's file", "get EACCES on the delegated cgroup's file",
	"get EACCES on a cgroup it was not given",
};

static int write_id_map(const char *file, const char *map)
{
	return write_text(file, (char *)map, strlen(map)) < 0 ? -1 : 0;
}

/* In the child: become the delegatee; returns the step that failed. */
static enum deleg_step delegatee(const char *deleg, const char *sub,
				 const char *other, bool userns)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return D_DROP;
	/* Changing credentials made us undumpable: /proc/self/ is root's. */
	prctl(PR_SET_DUMPABLE, 1);
	/* Root of a namespace of its own, owning nothing outside it. */
	if (userns && (unshare(CLONE_NEWUSER) ||
		       write_id_map("/proc/self/uid_map", "0 65534 1") ||
		       write_id_map("/proc/self/setgroups", "deny") ||
		       write_id_map("/proc/self/gid_map", "0 65534 1")))
		return D_USERNS;
	if (write_errno(deleg, "cgroup.subtree_control", "+memory"))
		return D_ENABLE;
	if (mkdir(sub, 0755))
		return D_MKDIR;
	if (write_errno(sub, "memory.reap_on_kill", "1"))
		return D_SET_OWN;
	if (write_errno(sub, "memory.reap_on_kill", "2") != EINVAL)
		return D_BAD_VALUE;
	if (write_errno(sub, "memory.reap_on_kill", "0"))
		return D_CLEAR_OWN;
	if (write_errno(deleg, "memory.reap_on_kill", "0") != EACCES)
		return D_SET_DELEGATED;
	if (write_errno(other, "memory.reap_on_kill", "1") != EACCES)
		return D_SET_OTHER;
	return D_OK;
}

static int delegate(const char *cgroup)
{
	static const char * const files[] = {
		"", "cgroup.procs", "cgroup.threads", "cgroup.subtree_control",
	};
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", cgroup, files[i]);
		if (chown(path, NOBODY, NOBODY))
			return -1;
	}
	return 0;
}

static int delegation(const char *root, bool userns)
{
	struct victim_args a = { .size = MB(16), .mode = V_PAUSE };
	char *parent, *deleg, *sub, *other;
	struct trace_event queued;
	int ret = KSFT_FAIL, status;
	pid_t pid;

	parent = cg_name(root, "reap_on_kill_deleg");
	deleg = cg_name(parent, "delegated");
	sub = cg_name(deleg, "child");
	other = cg_name(parent, "other");
	if (!parent || !deleg || !sub || !other || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory") ||
	    cg_create(deleg) || cg_create(other) || delegate(deleg) ||
	    cg_write(deleg, "memory.reap_on_kill", "1"))
		goto out;

	pid = fork();
	if (pid == 0)
		_exit(delegatee(deleg, sub, other, userns));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		goto out;
	if (WEXITSTATUS(status) == D_USERNS && userns) {
		ksft_print_msg("an unprivileged user cannot create a user namespace here\n");
		ret = KSFT_SKIP;
		goto out;
	}
	if (WEXITSTATUS(status) != D_OK) {
		ksft_print_msg("the delegatee could not %s\n",
			       WEXITSTATUS(status) < ARRAY_SIZE(deleg_step_name) ?
			       deleg_step_name[WEXITSTATUS(status)] : "?");
		goto out;
	}
	/* It wrote 0 below the delegated 1: still covered. */
	if (cg_read_strcmp(sub, "memory.reap_on_kill", "0\n") ||
	    cg_read_strcmp(deleg, "memory.reap_on_kill", "1\n"))
		goto out;
	/*
	 * Covered means a reap is queued at the kill.  kill_reap would not
	 * do: an unthrottled victim may finish its exit before the worker
	 * runs, and that reap frees nothing and is not counted.
	 */
	if (trace_begin(reap_events))
		goto out;
	pid = spawn_victim(sub, &a);
	if (pid < 0)
		goto out;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (trace_wait("reap_on_kill_queue", pid, &queued, 10 * SECOND))
		ret = KSFT_PASS;
	else
		ksft_print_msg("a 0 below the delegated cgroup's 1 opted out\n");
out:
	trace_end();
	cg_destroy_free(sub);
	cg_destroy_free(deleg);
	cg_destroy_free(other);
	cg_destroy_free(parent);
	return ret;
}

static int test_delegation(const char *root)
{
	return delegation(root, false);
}

static int test_delegation_userns(const char *root)
{
	return delegation(root, true);
}

/*
 * A cgroup namespace on a hierarchy mounted with nsdelegate, whose root is
 * the delegated cgroup: the namespace root is a delegation boundary.  The
 * unprivileged user, root only of a user namespace of its own, organizes
 * its subtree, covers a child it created, and kills in it; writing the
 * namespace root's own memory.reap_on_kill fails with EPERM even though we
 * chown'd that file to it: cgroup_file_write() refuses writes to the
 * namespace root from inside unless the file is CFTYPE_NS_DELEGATABLE,
 * which memory.reap_on_kill must not be.
 */
enum ns_step {
	N_OK, N_ENTER, N_DROP, N_USERNS, N_CGROUPNS, N_LEAF, N_ENABLE, N_MKDIR,
	N_SET_SUB, N_SET_ROOT, N_SPAWN, N_REAP,
};

static const char * const ns_step_name[] = {
	"", "enter the delegated cgroup", "drop privileges",
	"enter a user namespace", "enter a cgroup namespace",
	"move itself to a leaf", "enable memory and cpu for children",
	"create a child", "set its child's file to 1",
	"get EPERM on the namespace root's file", "start a victim",
	"see its kill reaped",
};

/* In the child: returns the step that failed. */
static enum ns_step ns_delegatee(const char *deleg, const char *leaf,
				 const char *sub)
{
	struct victim_args a = { .size = MB(16), .mode = V_PAUSE,
				 .spin = true };
	int status, err;
	bool reaped;
	pid_t pid;

	if (cg_enter_current(deleg))
		return N_ENTER;
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return N_DROP;
	prctl(PR_SET_DUMPABLE, 1);
	/* CLONE_NEWCGROUP needs CAP_SYS_ADMIN, in a namespace of our own. */
	if (unshare(CLONE_NEWUSER) ||
	    write_id_map("/proc/self/uid_map", "0 65534 1") ||
	    write_id_map("/proc/self/setgroups", "deny") ||
	    write_id_map("/proc/self/gid_map", "0 65534 1"))
		return N_USERNS;
	if (unshare(CLONE_NEWCGROUP))
		return N_CGROUPNS;
	/* No internal processes: leave the root before enabling controllers. */
	if (mkdir(leaf, 0755) || cg_enter_current(leaf))
		return N_LEAF;
	if (write_errno(deleg, "cgroup.subtree_control", "+memory +cpu"))
		return N_ENABLE;
	if (mkdir(sub, 0755))
		return N_MKDIR;
	if (write_errno(sub, "memory.reap_on_kill", "1"))
		return N_SET_SUB;
	err = write_errno(deleg, "memory.reap_on_kill", "1");
	if (err != EPERM) {
		ksft_print_msg("the namespace root's memory.reap_on_kill: %s\n",
			       err ? strerror(err) : "written");
		return N_SET_ROOT;
	}
	pid = spawn_victim(sub, &a);
	if (pid < 0)
		return N_SPAWN;
	/*
	 * Killed while throttled, so that its own exit cannot free the
	 * memory before the worker (kill_reap counts reaps that freed).
	 */
	if (crawl_until_throttled(sub) < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return N_SPAWN;
	}
	kill(pid, SIGKILL);
	reaped = wait_reaps(sub, 1);
	write_errno(sub, "cpu.max", "max");
	waitpid(pid, &status, 0);
	return reaped ? N_OK : N_REAP;
}

static int test_cgroupns_nsdelegate(const char *root)
{
	char *parent, *deleg, *leaf, *sub, *file = NULL;
	char mnt[PATH_MAX];
	bool nsdelegate = false;
	int ret = KSFT_FAIL, status;
	pid_t pid;

	if (cg_find_unified_root(mnt, sizeof(mnt), &nsdelegate) ||
	    !nsdelegate) {
		ksft_print_msg("cgroup2 is not mounted with nsdelegate\n");
		return KSFT_SKIP;
	}
	parent = cg_name(root, "reap_on_kill_nsdeleg");
	deleg = cg_name(parent, "delegated");
	leaf = cg_name(deleg, "init");
	sub = cg_name(deleg, "child");
	if (!parent || !deleg || !leaf || !sub || cg_create(parent) ||
	    cg_write(parent, "cgroup.subtree_control", "+memory +cpu") ||
	    cg_create(deleg) || delegate(deleg))
		goto out;
	/* Not for nsdelegate to refuse what file permissions already do. */
	file = cg_control(deleg, "memory.reap_on_kill");
	if (!file || chown(file, NOBODY, NOBODY))
		goto out;

	pid = fork();
	if (pid == 0)
		_exit(ns_delegatee(deleg, leaf, sub));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		goto out;
	if (WEXITSTATUS(status) == N_USERNS) {
		ksft_print_msg("an unprivileged user cannot create a user namespace here\n");
		ret = KSFT_SKIP;
		goto out;
	}
	if (WEXITSTATUS(status) != N_OK) {
		ksft_print_msg("inside its cgroup namespace, the user could not %s\n",
			       WEXITSTATUS(status) < ARRAY_SIZE(ns_step_name) ?
			       ns_step_name[WEXITSTATUS(status)] : "?");
		goto out;
	}
	if (cg_read_strcmp(deleg, "memory.reap_on_kill", "0\n") ||
	    cg_read_strcmp(sub, "memory.reap_on_kill", "1\n") ||
	    events(sub, "memory.events", "kill_reap ") != 1) {
		ksft_print_msg("namespace root %s, child's file %s, kill_reap %ld\n",
			       cg_read_strcmp(deleg, "memory.reap_on_kill", "0\n") ?
			       "changed" : "unchanged",
			       cg_read_strcmp(sub, "memory.reap_on_kill", "1\n") ?
			       "not 1" : "1",
			       events(sub, "memory.events", "kill_reap "));
		goto out;
	}
	ret = KSFT_PASS;
out:
	cg_destroy_free(sub);
	cg_destroy_free(leaf);
	cg_destroy_free(deleg);
	cg_destroy_free(parent);
	free(file);
	return ret;
}

#define T(x) { x, #x }
static const struct reap_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_interface),
	T(test_toggle_rate_limited),
	T(test_hierarchy),
	T(test_coverage_follows_task),
	T(test_events_notify),
	T(test_throttled_victim),
	T(test_trigger_sigkill),
	T(test_trigger_sigterm_default),
	T(test_trigger_cgroup_kill),
	T(test_trigger_oom),
	T(test_trigger_itimer),
	T(test_no_reap_setting_off),
	T(test_no_reap_handled_sigterm),
	T(test_no_reap_coredump),
	T(test_no_reap_coredump_killed),
	T(test_robust_futex),
	T(test_robust_futex_compat),
	T(test_clone_vm_partner),
	T(test_remote_readers),
	T(test_thp_victim),
	T(test_private_file_reaped),
	T(test_split_reap),
	T(test_maxrss_kept),
	T(test_swapped_victim),
	T(test_robust_head_swapped),
	T(test_robust_head_zero_page),
	T(test_robust_head_secretmem),
	T(test_robust_walk_bounded),
	T(test_robust_many_segments),
	T(test_oom_score_kept),
	T(test_teardown_stays_with_victim),
	T(test_mmap_lock_held),
	T(test_shared_survivor),
	T(test_kill_in_exit_group),
	T(test_mm_held_past_exit),
	T(test_migrated_before_reap),
	T(test_oom_group),
	T(test_delegation),
	T(test_delegation_userns),
	T(test_cgroupns_nsdelegate),
};

#undef T

/*
 * With test names as arguments ("test_robust_futex" or "robust_futex"),
 * only those run; the others report SKIP, so the plan and the numbering
 * stay those of a full run.
 */
static bool name_matches(const char *arg, const char *name)
{
	return !strcmp(arg, name) ||
	       (!strncmp(name, "test_", 5) && !strcmp(arg, name + 5));
}

static bool selected(int argc, char **argv, const char *name)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++)
		if (name_matches(argv[i], name))
			return true;
	return false;
}

static void check_selection(int argc, char **argv)
{
	unsigned int j;
	int i;

	for (i = 1; i < argc; i++) {
		for (j = 0; j < ARRAY_SIZE(tests); j++)
			if (name_matches(argv[i], tests[j].name))
				break;
		if (j == ARRAY_SIZE(tests)) {
			fprintf(stderr, "usage: %s [TEST...]\nunknown test %s; the tests are:\n",
				argv[0], argv[i]);
			for (j = 0; j < ARRAY_SIZE(tests); j++)
				fprintf(stderr, "  %s\n", tests[j].name);
			exit(KSFT_FAIL);
		}
	}
}

int main(int argc, char **argv)
{
	char root[PATH_MAX];
	unsigned int i;

	page_size = sysconf(_SC_PAGESIZE);
	if (argc == 3 && !strcmp(argv[1], "--core-reader"))
		return core_reader(argv[2]);
	check_selection(argc, argv);
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(tests));
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.controllers", "memory") ||
	    cg_read_strstr(root, "cgroup.controllers", "cpu"))
		ksft_exit_skip("memory and cpu controllers are needed\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "memory") ||
	    cg_read_strstr(root, "cgroup.subtree_control", "cpu"))
		ksft_exit_skip("memory and cpu must be enabled for children\n");

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (!selected(argc, argv, tests[i].name)) {
			ksft_test_result_skip("%s: not selected\n", tests[i].name);
			continue;
		}
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
