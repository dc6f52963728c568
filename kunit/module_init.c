// SPDX-License-Identifier: GPL-2.0
/*
 * wq-kunit's /init for a module boot: load the suite's module, whose
 * suites run as it loads, then power the guest off.  Built against the
 * tree's own nolibc, so that no C library for the guest is needed.
 */
#include <linux/module.h>

#ifndef MODULE_PATH
#define MODULE_PATH	"/workqueue_kunit_test.ko"
#endif

static void say(const char *what)
{
	write(1, what, strlen(what));
}

int main(void)
{
	int fd = open(MODULE_PATH, O_RDONLY, 0);

	if (fd < 0)
		say("wq-kunit init: cannot open " MODULE_PATH "\n");
	else if (my_syscall3(__NR_finit_module, fd, "", 0))
		say("wq-kunit init: finit_module(" MODULE_PATH ") failed\n");
	reboot(LINUX_REBOOT_CMD_POWER_OFF);
	return 0;
}
