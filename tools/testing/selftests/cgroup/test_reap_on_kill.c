// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for memory.reap_on_kill: the interface, the effect on a throttled
 * victim, every way a process can be killed, and what must never happen
 * (reaping a live process's memory, breaking robust futexes, garbage for
 * remote readers, truncated core dumps, OOM-victim state).
 *
 * Most victims are throttled to 1% by cpu.max once they have allocated,
 * so that their exit path crawls and whatever freed their memory quickly
 * can only have been the reaper.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
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
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"

#define THROTTLE	"1000 100000"	/* cpu.max 1% */
#define SECOND		1000000000LL
#define TIMEOUT		(60 * SECOND)

enum victim_mode {
	V_PAUSE,	/* allocate, then wait to be killed */
	V_ITIMER,	/* ... by its own SIGALRM */
	V_HANDLE_TERM,	/* catch SIGTERM and exit normally */
	V_COREDUMP,	/* dump core on request */
	V_ROBUST,	/* hold a shared and a private robust mutex */
	V_PATTERN,	/* fill memory with an address-derived pattern */
};

struct victim_args {
	size_t size;
	enum victim_mode mode;
	pthread_mutex_t *shared;	/* V_ROBUST: in MAP_SHARED memory */
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * SECOND + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static uint64_t pattern_at(const void *addr)
{
	return (uintptr_t)addr * 0x9e3779b97f4a7c15ULL;
}

static void fill_pattern(uint64_t *buf, size_t size)
{
	size_t i;

	for (i = 0; i < size / sizeof(*buf); i++)
		buf[i] = pattern_at(&buf[i]);
}

static int got_term;

static void on_term(int sig)
{
	__atomic_store_n(&got_term, 1, __ATOMIC_RELAXED);
}

static void lock_robust(pthread_mutex_t *m, bool pshared)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	if (pshared)
		pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(m, &attr);
	pthread_mutex_lock(m);
}

/* Runs in the child, inside the cgroup; reports readiness on fd. */
static void victim_main(int fd, const struct victim_args *a)
{
	pthread_mutex_t *private_mutex;
	struct itimerval it = { .it_value = { 0, 300000 } };
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	char *buf;

	buf = mmap(NULL, a->size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		_exit(2);
	/* Base pages: a THP is unmapped in one go and would hide the cost. */
	madvise(buf, a->size, MADV_NOHUGEPAGE);
	if (a->mode == V_PATTERN || a->mode == V_COREDUMP)
		fill_pattern((uint64_t *)buf, a->size);
	else
		memset(buf, 0x5a, a->size);

	switch (a->mode) {
	case V_HANDLE_TERM:
		signal(SIGTERM, on_term);
		break;
	case V_COREDUMP:
		setrlimit(RLIMIT_CORE, &unlimited);
		prctl(PR_SET_DUMPABLE, 1);
		break;
	case V_ROBUST:
		/*
		 * Locked second, the private mutex heads the robust list:
		 * the exit path must walk through private memory to reach
		 * the shared mutex.
		 */
		private_mutex = malloc(sizeof(*private_mutex));
		lock_robust(a->shared, true);
		lock_robust(private_mutex, false);
		break;
	default:
		break;
	}

	if (write(fd, "r", 1) != 1)
		_exit(3);
	close(fd);

	switch (a->mode) {
	case V_ITIMER:
		setitimer(ITIMER_REAL, &it, NULL);
		break;
	case V_HANDLE_TERM:
		while (!__atomic_load_n(&got_term, __ATOMIC_RELAXED))
			pause();
		_exit(0);
	case V_COREDUMP:
		raise(SIGQUIT);
		_exit(4);
	default:
		break;
	}
	for (;;)
		pause();
}

static pid_t spawn_victim(const char *cgroup, const struct victim_args *a)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		if (cg_enter_current(cgroup))
			_exit(1);
		victim_main(p[1], a);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(p[0]);
	return pid;
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

static int unthrottle_and_reap(const char *cgroup, pid_t pid, int *status)
{
	cg_write(cgroup, "cpu.max", "max");
	return waitpid(pid, status, 0) == pid ? 0 : -1;
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

static void pair_destroy(struct pair *cg)
{
	if (cg->leaf)
		cg_destroy(cg->leaf);
	if (cg->parent)
		cg_destroy(cg->parent);
	free(cg->leaf);
	free(cg->parent);
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

/* Kill a throttled 64 MiB victim of cg.leaf with sig; 0 if reaped. */
static int kill_throttled(struct pair *cg, int sig, enum victim_mode mode,
			  long want_reaps, int *status)
{
	struct victim_args a = { .size = MB(64), .mode = mode };
	pid_t pid;
	int ret = -1;

	pid = spawn_victim(cg->leaf, &a);
	if (pid < 0)
		return -1;
	if (cg_write(cg->leaf, "cpu.max", THROTTLE))
		goto out;
	if (sig && kill(pid, sig))
		goto out;
	if (!wait_reaps(cg->leaf, want_reaps))
		goto out;
	if (wait_mem_below(cg->leaf, MB(16), now_ns()) < 0)
		goto out;
	ret = 0;
out:
	if (ret)
		kill(pid, SIGKILL);
	if (unthrottle_and_reap(cg->leaf, pid, status))
		ret = -1;
	return ret;
}

static int test_hierarchy(const char *root)
{
	struct pair cg = { };
	int ret = KSFT_FAIL, status;

	if (pair_create(root, &cg))
		goto out;
	/* Set on the parent: the leaf reads 0 but is covered ... */
	if (cg_write(cg.parent, "memory.reap_on_kill", "1") ||
	    cg_read_strcmp(cg.leaf, "memory.reap_on_kill", "0\n"))
		goto out;
	if (kill_throttled(&cg, SIGKILL, V_PAUSE, 1, &status))
		goto out;
	/* ... and cannot opt out. */
	if (cg_write(cg.leaf, "memory.reap_on_kill", "0") ||
	    kill_throttled(&cg, SIGKILL, V_PAUSE, 2, &status))
		goto out;
	if (events(cg.leaf, "memory.events.local", "kill_reap ") != 2 ||
	    events(cg.parent, "memory.events", "kill_reap ") != 2 ||
	    events(cg.parent, "memory.events.local", "kill_reap ") != 0) {
		ksft_print_msg("kill_reap not counted hierarchically\n");
		goto out;
	}
	/* Off on both: no more reaps. */
	if (cg_write(cg.parent, "memory.reap_on_kill", "0") ||
	    kill_throttled(&cg, SIGKILL, V_PAUSE, 2, &status))
		goto out;
	if (events(cg.leaf, "memory.events", "kill_reap ") != 2)
		goto out;
	ret = KSFT_PASS;
out:
	pair_destroy(&cg);
	return ret;
}

static int test_events_notify(const char *root)
{
	struct pair cg = { };
	int ret = KSFT_FAIL, fd = -1, wd, status;
	struct pollfd pfd;
	char *path = NULL;
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	pid_t pid;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	cg_write(cg.leaf, "cpu.max", THROTTLE);

	path = cg_control(cg.leaf, "memory.events");
	fd = inotify_init1(IN_NONBLOCK);
	wd = fd < 0 ? -1 : inotify_add_watch(fd, path, IN_MODIFY);
	kill(pid, SIGKILL);
	if (wd >= 0) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 10000) == 1 && wait_reaps(cg.leaf, 1))
			ret = KSFT_PASS;
	}
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	if (fd >= 0)
		close(fd);
	free(path);
	pair_destroy(&cg);
	return ret;
}

/*
 * Time from SIGKILL until a 256 MiB victim's memory is gone, with the
 * victim at cpu.max 1% (set after it allocated) or not.
 */
static long long kill_to_free(const char *root, bool reap, bool throttle)
{
	struct victim_args a = { .size = MB(256), .mode = V_PAUSE };
	struct pair cg = { };
	long long t = -1, t0;
	int status;
	pid_t pid;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", reap ? "1" : "0"))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	if (throttle)
		cg_write(cg.leaf, "cpu.max", THROTTLE);
	/* Let a throttled victim use up its quota for this period. */
	sleep_ms(200);
	t0 = now_ns();
	kill(pid, SIGKILL);
	t = wait_mem_below(cg.leaf, MB(256) / 10, t0);
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	pair_destroy(&cg);
	return t;
}

static int test_throttled_victim(const char *root)
{
	long long plain, plain_slow, reap, reap_slow;

	plain = kill_to_free(root, false, false);
	reap = kill_to_free(root, true, false);
	reap_slow = kill_to_free(root, true, true);
	plain_slow = kill_to_free(root, false, true);
	ksft_print_msg("%s %lld ms, %s %lld ms; %s %lld ms, %s %lld ms\n",
		       "kill-to-free 256 MiB: unthrottled", plain / 1000000,
		       "reap_on_kill", reap / 1000000,
		       "cpu.max 1%: plain", plain_slow / 1000000,
		       "reap_on_kill", reap_slow / 1000000);
	if (plain < 0 || reap < 0 || reap_slow < 0 || plain_slow < 0)
		return KSFT_FAIL;
	/*
	 * About as fast as an unthrottled kill (wide margin: QEMU's vCPUs
	 * are host threads and stall now and then) ...
	 */
	if (reap_slow > 5 * plain + SECOND)
		return KSFT_FAIL;
	/* ... where a plain kill of the throttled victim is many times slower. */
	if (plain_slow < 3 * reap_slow)
		return KSFT_FAIL;
	return KSFT_PASS;
}

static int trigger(const char *root, int sig, enum victim_mode mode,
		   int want_termsig)
{
	struct pair cg = { };
	int ret = KSFT_FAIL, status;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	if (kill_throttled(&cg, sig, mode, 1, &status))
		goto out;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != want_termsig) {
		ksft_print_msg("victim ended with status %#x\n", status);
		goto out;
	}
	/* A reap is not an OOM kill, and makes no OOM victim. */
	if (events(cg.leaf, "memory.events", "oom ") != 0 ||
	    events(cg.leaf, "memory.events", "oom_kill ") != 0)
		goto out;
	ret = KSFT_PASS;
out:
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
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	struct pair cg = { };
	pid_t pid[4];
	int ret = KSFT_FAIL, i, n = 0, status;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	for (n = 0; n < 4; n++) {
		pid[n] = spawn_victim(cg.leaf, &a);
		if (pid[n] < 0)
			goto reap;
	}
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	if (cg_write(cg.leaf, "cgroup.kill", "1"))
		goto reap;
	if (wait_reaps(cg.leaf, 4) &&
	    wait_mem_below(cg.leaf, MB(32), now_ns()) >= 0)
		ret = KSFT_PASS;
reap:
	cg_write(cg.leaf, "cpu.max", "max");
	for (i = 0; i < n; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &status, 0);
	}
out:
	pair_destroy(&cg);
	return ret;
}

static int test_trigger_oom(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_PAUSE };
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	pid_t pid;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	/* No swap to reclaim into, where swap exists. */
	cg_write(cg.leaf, "memory.swap.max", "0");
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	/* Below usage with nothing to reclaim: the OOM killer kills it. */
	cg_write(cg.leaf, "memory.max", "16M");
	if (wait_reaps(cg.leaf, 1) &&
	    events(cg.leaf, "memory.events", "oom_kill ") == 1)
		ret = KSFT_PASS;
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	pair_destroy(&cg);
	return ret;
}

/* The setting is 0, or the signal is not fatal: no reap may happen. */
static int no_reap(const char *root, bool setting, int sig,
		   enum victim_mode mode)
{
	struct victim_args a = { .size = MB(64), .mode = mode };
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	pid_t pid;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", setting ? "1" : "0"))
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
	if (events(cg.leaf, "memory.events", "kill_reap ") == 0)
		ret = KSFT_PASS;
out:
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
	uint64_t *page = malloc(PAGE_SIZE);
	size_t found = 0, i;
	int fd;

	fd = open(path, O_RDONLY);
	while (fd >= 0 && page && read(fd, page, PAGE_SIZE) == PAGE_SIZE) {
		for (i = 1; i < PAGE_SIZE / sizeof(*page); i++)
			if (page[i] - page[i - 1] != step)
				break;
		if (i == PAGE_SIZE / sizeof(*page))
			found++;
	}
	if (fd >= 0)
		close(fd);
	free(page);
	if (found != pages)
		ksft_print_msg("core holds %zu of %zu pages\n", found, pages);
	return found == pages ? 0 : -1;
}

static int test_no_reap_coredump(const char *root)
{
	char pattern[PATH_MAX] = "", core[PATH_MAX], dir[] = "/tmp/reapcoreXXXXXX";
	struct victim_args a = { .size = MB(16), .mode = V_COREDUMP };
	struct pair cg = { };
	int ret = KSFT_FAIL, status;
	pid_t pid;

	if (!mkdtemp(dir))
		return KSFT_FAIL;
	if (read_text("/proc/sys/kernel/core_pattern", pattern,
		      sizeof(pattern)) < 0)
		goto out;
	snprintf(core, sizeof(core), "%s/core", dir);
	if (write_text("/proc/sys/kernel/core_pattern", core,
		       strlen(core)) < 0)
		goto out;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto restore;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		goto restore;
	if (!WIFSIGNALED(status) || !WCOREDUMP(status)) {
		ksft_print_msg("victim did not dump core: status %#x\n", status);
		goto restore;
	}
	if (events(cg.leaf, "memory.events", "kill_reap ") != 0)
		goto restore;
	if (count_core_pages(core, MB(16) / PAGE_SIZE)) {
		ksft_print_msg("core dump incomplete\n");
		goto restore;
	}
	ret = KSFT_PASS;
restore:
	write_text("/proc/sys/kernel/core_pattern", pattern, strlen(pattern));
	unlink(core);
out:
	rmdir(dir);
	pair_destroy(&cg);
	return ret;
}

static int test_robust_futex(const char *root)
{
	struct victim_args a = { .size = MB(64), .mode = V_ROBUST };
	struct pair cg = { };
	struct timespec deadline;
	int ret = KSFT_FAIL, status, err;
	long before;
	pid_t pid;

	a.shared = mmap(NULL, sizeof(*a.shared), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (a.shared == MAP_FAILED)
		return KSFT_FAIL;
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	pid = spawn_victim(cg.leaf, &a);
	if (pid < 0)
		goto out;
	before = cg_read_long(cg.leaf, "memory.current");
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	/* Used up its quota: its exit path runs only after the reap. */
	sleep_ms(200);
	kill(pid, SIGKILL);
	/* The mutexes' VMAs were kept; the big buffer went early. */
	if (!wait_reaps(cg.leaf, 1) ||
	    wait_mem_below(cg.leaf, before / 2, now_ns()) < 0)
		goto reap;

	/* Now the exit path must still get through the private mutex. */
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 30;
	err = pthread_mutex_timedlock(a.shared, &deadline);
	if (err != EOWNERDEAD) {
		ksft_print_msg("waiter got %s, want EOWNERDEAD\n", strerror(err));
		goto reap;
	}
	pthread_mutex_consistent(a.shared);
	pthread_mutex_unlock(a.shared);
	ret = KSFT_PASS;
reap:
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
	munmap(a.shared, sizeof(*a.shared));
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

static int test_clone_vm_partner(const char *root)
{
	const size_t size = MB(64), stack_size = MB(1);
	struct pair cg = { };
	struct partner p;
	int ret = KSFT_FAIL, status;
	uint64_t *buf;
	char *stack, c;
	pid_t pid;
	size_t i;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (buf == MAP_FAILED || stack == MAP_FAILED || pipe(p.ready))
		return KSFT_FAIL;
	fill_pattern(buf, size);
	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
		goto out;
	p.cgroup = cg.leaf;
	/* Shares our address space, but is a process of its own. */
	pid = clone(partner_fn, stack + stack_size, CLONE_VM | SIGCHLD, &p);
	if (pid < 0 || read(p.ready[0], &c, 1) != 1)
		goto out;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	sleep_ms(500);
	for (i = 0; i < size / sizeof(*buf); i++)
		if (buf[i] != pattern_at(&buf[i])) {
			ksft_print_msg("our memory changed at %zu\n", i);
			goto out;
		}
	if (events(cg.leaf, "memory.events", "kill_reap ") == 0)
		ret = KSFT_PASS;
out:
	pair_destroy(&cg);
	munmap(stack, stack_size);
	munmap(buf, size);
	return ret;
}

struct reader {
	pid_t pid;
	uint64_t *base;
	size_t size;
	bool proc_mem;
	bool *stop;
	long good, errors, garbage;
	int first_errno;
};

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
		ssize_t n;
		size_t i;

		if (r->proc_mem)
			n = pread(fd, chunk, sizeof(chunk), (off_t)remote);
		else
			n = process_vm_readv(r->pid, &local, 1, &rem, 1, 0);
		if (n != sizeof(chunk)) {
			if (!r->errors++)
				r->first_errno = errno;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(chunk); i++)
			if (chunk[i] != pattern_at(&remote[i]))
				break;
		if (i < ARRAY_SIZE(chunk))
			r->garbage++;
		else
			r->good++;
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int test_remote_readers(const char *root)
{
	struct victim_args a = { .size = MB(128), .mode = V_PATTERN };
	struct reader r[2] = { };
	struct pair cg = { };
	bool stop = false;
	pthread_t th[2];
	int ret = KSFT_FAIL, status, i;
	uint64_t *base = NULL;
	char maps[4096], line[256];
	FILE *f;
	pid_t pid;

	if (pair_create(root, &cg) ||
	    cg_write(cg.leaf, "memory.reap_on_kill", "1"))
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
					.stop = &stop };
		pthread_create(&th[i], NULL, reader_fn, &r[i]);
	}
	sleep_ms(200);
	cg_write(cg.leaf, "cpu.max", THROTTLE);
	kill(pid, SIGKILL);
	wait_reaps(cg.leaf, 1);
	sleep_ms(300);
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ksft_print_msg("readers: process_vm_readv %ld good %ld errors (first: %s), ",
		       r[0].good, r[0].errors, strerror(r[0].first_errno));
	printf("/proc/pid/mem %ld good %ld errors (first: %s), %ld garbage\n",
	       r[1].good, r[1].errors, strerror(r[1].first_errno),
	       r[0].garbage + r[1].garbage);
	if (r[0].garbage || r[1].garbage || !r[0].good || !r[1].good)
		goto kill;
	if (events(cg.leaf, "memory.events", "kill_reap ") != 1)
		goto kill;
	ret = KSFT_PASS;
kill:
	kill(pid, SIGKILL);
	unthrottle_and_reap(cg.leaf, pid, &status);
out:
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
	pid = spawn_victim(sub, &a);
	if (pid < 0)
		goto out;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (wait_reaps(sub, 1))
		ret = KSFT_PASS;
	else
		ksft_print_msg("a 0 below the delegated cgroup's 1 opted out\n");
out:
	if (sub)
		cg_destroy(sub);
	if (deleg)
		cg_destroy(deleg);
	if (other)
		cg_destroy(other);
	if (parent)
		cg_destroy(parent);
	free(sub);
	free(deleg);
	free(other);
	free(parent);
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

#define T(x) { x, #x }
static const struct reap_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_interface),
	T(test_hierarchy),
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
	T(test_robust_futex),
	T(test_clone_vm_partner),
	T(test_remote_readers),
	T(test_delegation),
	T(test_delegation_userns),
};

#undef T

int main(int argc, char **argv)
{
	char root[PATH_MAX];
	unsigned int i;

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
