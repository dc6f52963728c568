// SPDX-License-Identifier: GPL-2.0
/* The lines of 6.12.118's kernel/sched/topology.c that the series touches. */


	ndoms_cur = ndoms_new;

	update_sched_domain_debugfs();
}

/*
