// SPDX-License-Identifier: GPL-2.0
/*
 * The 32-bit side of test_reap_on_kill's test_robust_futex_compat, built
 * with gcc -m32: a 32-bit process registers its robust futex list with the
 * compat set_robust_list(), which memory.reap_on_kill does not read, so the
 * reap must keep the victim's whole address space.  Both the victim and the
 * waiter are 32-bit: a pthread_mutex_t has another layout in each ABI.
 *
 * The waiter does not lock the mutex through glibc: 32-bit glibc waits with
 * the time32 futex() system call, which a kernel without
 * CONFIG_COMPAT_32BIT_TIME lacks.  It waits with futex_time64() on the
 * mutex's futex word, as glibc would, until the victim's exit path marks
 * it FUTEX_OWNER_DIED, which is what glibc reports as EOWNERDEAD.
 *
 *   reap_robust32 hold MEMFD MIB READY_FD
 *	Lock a process-shared robust mutex at the start of MEMFD, then a
 *	private one, so that the robust list runs through private memory;
 *	fill MIB MiB of private memory; write one byte to READY_FD; spin in
 *	user space until killed.
 *   reap_robust32 wait MEMFD
 *	Wait up to 120 s for that mutex's owner to die.  Exit status 0 once
 *	the futex word says FUTEX_OWNER_DIED (EOWNERDEAD), 255 if it was
 *	released without that, else the errno (ETIMEDOUT).
 *   reap_robust32 probe
 *	Exit 0: this kernel runs 32-bit programs.
 */
#define _GNU_SOURCE

#include <assert.h>
#include <errno.h>
#include <linux/futex.h>
#include <linux/time_types.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_futex_time64
#define SYS_futex_time64	422
#endif

/* glibc keeps a mutex's futex word, owner TID and flags, first. */
static_assert(offsetof(pthread_mutex_t, __data.__lock) == 0,
	      "the futex word is not first in pthread_mutex_t");

static pthread_mutex_t *map_shared(const char *fd)
{
	void *p = mmap(NULL, sizeof(pthread_mutex_t), PROT_READ | PROT_WRITE,
		       MAP_SHARED, atoi(fd), 0);

	if (p == MAP_FAILED)
		_exit(2);
	return p;
}

static void lock_robust(pthread_mutex_t *m, int pshared)
{
	pthread_mutexattr_t attr;

	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	if (pshared)
		pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	if (pthread_mutex_init(m, &attr) || pthread_mutex_lock(m))
		_exit(3);
}

static int hold(char **argv)
{
	size_t size = (size_t)atoi(argv[3]) << 20;
	pthread_mutex_t *private_mutex = malloc(sizeof(*private_mutex));
	char *buf;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!private_mutex || buf == MAP_FAILED)
		return 2;
	madvise(buf, size, MADV_NOHUGEPAGE);
	memset(buf, 0x5a, size);
	/* Locked second, the private mutex heads the robust list. */
	lock_robust(map_shared(argv[2]), 1);
	lock_robust(private_mutex, 0);
	if (write(atoi(argv[4]), "r", 1) != 1)
		return 4;
	/* Runnable in user space, so that cpu.max throttles us. */
	for (;;)
		__asm__ __volatile__("" ::: "memory");
}

static int wait_owner_dead(char **argv)
{
	uint32_t *word = (uint32_t *)map_shared(argv[2]);
	struct __kernel_timespec timeout = { .tv_sec = 120 };
	uint32_t val;

	for (;;) {
		val = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		if (val & FUTEX_OWNER_DIED)
			return 0;
		if (!(val & FUTEX_TID_MASK))
			return 255;
		/* Ask the owner's unlock, or its death, to wake us. */
		if (!(val & FUTEX_WAITERS) &&
		    !__atomic_compare_exchange_n(word, &val, val | FUTEX_WAITERS,
						 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		if (syscall(SYS_futex_time64, word, FUTEX_WAIT,
			    val | FUTEX_WAITERS, &timeout, NULL, 0) &&
		    errno != EAGAIN && errno != EINTR)
			return errno;
	}
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "hold"))
		return hold(argv);
	if (argc == 3 && !strcmp(argv[1], "wait"))
		return wait_owner_dead(argv);
	if (argc == 2 && !strcmp(argv[1], "probe"))
		return 0;
	return 1;
}
