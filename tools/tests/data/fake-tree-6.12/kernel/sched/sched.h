// SPDX-License-Identifier: GPL-2.0
/* The lines of 6.12.118's kernel/sched/sched.h that the series touches. */


		    struct task_struct *p);
extern void fair_server_init(struct rq *rq);
extern void __dl_server_attach_root(struct sched_dl_entity *dl_se, struct rq *rq);
extern int dl_server_apply_params(struct sched_dl_entity *dl_se,
		    u64 runtime, u64 period, bool init);

