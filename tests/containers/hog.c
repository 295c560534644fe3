// SPDX-License-Identifier: GPL-2.0
/*
 * The process a container runs in tests/containers/test-runtimes.sh:
 * touches argv[1] MiB of private anonymous memory, says "ready" on stdout
 * and waits to be killed.  Linked statically, so that a root holding only
 * busybox can run it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 64) << 20;
	char *buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (buf == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memset(buf, 0x5a, size);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
