/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The declarations of Debian's 6.1 and 6.12 include/linux/workqueue.h that
 * tools/wq-kunit coverage reads, for the tools' tests.
 */
extern void __init_work(struct work_struct *work, int onstack);
extern void destroy_work_on_stack(struct work_struct *work);
extern void destroy_delayed_work_on_stack(struct delayed_work *work);
extern void destroy_workqueue(struct workqueue_struct *wq);
extern bool queue_work_on(int cpu, struct workqueue_struct *wq,
extern bool queue_work_node(int node, struct workqueue_struct *wq,
extern bool queue_delayed_work_on(int cpu, struct workqueue_struct *wq,
extern bool mod_delayed_work_on(int cpu, struct workqueue_struct *wq,
extern bool queue_rcu_work(struct workqueue_struct *wq, struct rcu_work *rwork);
extern void __flush_workqueue(struct workqueue_struct *wq);
extern void drain_workqueue(struct workqueue_struct *wq);
extern int schedule_on_each_cpu(work_func_t func);
extern bool flush_work(struct work_struct *work);
extern bool cancel_work(struct work_struct *work);
extern bool cancel_work_sync(struct work_struct *work);
extern bool flush_delayed_work(struct delayed_work *dwork);
extern bool cancel_delayed_work(struct delayed_work *dwork);
extern bool cancel_delayed_work_sync(struct delayed_work *dwork);
extern bool flush_rcu_work(struct rcu_work *rwork);
extern void workqueue_set_max_active(struct workqueue_struct *wq,
extern struct work_struct *current_work(void);
extern bool current_is_workqueue_rescuer(void);
extern bool workqueue_congested(int cpu, struct workqueue_struct *wq);
extern unsigned int work_busy(struct work_struct *work);
extern __printf(1, 2) void set_worker_desc(const char *fmt, ...);
extern void print_worker_info(const char *log_lvl, struct task_struct *task);
extern void show_all_workqueues(void);
extern void show_one_workqueue(struct workqueue_struct *wq);
extern void wq_worker_comm(char *buf, size_t size, struct task_struct *task);
extern void __warn_flushing_systemwide_wq(void)
extern void freeze_workqueues_begin(void);
extern bool freeze_workqueues_busy(void);
extern void thaw_workqueues(void);
void delayed_work_timer_fn(struct timer_list *t);
void free_workqueue_attrs(struct workqueue_attrs *attrs);
int apply_workqueue_attrs(struct workqueue_struct *wq,
int workqueue_set_unbound_cpumask(cpumask_var_t cpumask);
int execute_in_process_context(work_func_t fn, struct execute_work *);
long work_on_cpu_key(int cpu, long (*fn)(void *),
long work_on_cpu_safe_key(int cpu, long (*fn)(void *),
int workqueue_sysfs_register(struct workqueue_struct *wq);
void wq_watchdog_touch(int cpu);
int workqueue_prepare_cpu(unsigned int cpu);
int workqueue_online_cpu(unsigned int cpu);
int workqueue_offline_cpu(unsigned int cpu);
static inline struct delayed_work *to_delayed_work(struct work_struct *work)
static inline struct rcu_work *to_rcu_work(struct work_struct *work)
static inline unsigned int work_static(struct work_struct *work)
static inline void __init_work(struct work_struct *work, int onstack) { }
static inline void destroy_work_on_stack(struct work_struct *work) { }
static inline void destroy_delayed_work_on_stack(struct delayed_work *work) { }
static inline unsigned int work_static(struct work_struct *work) { return 0; }
static inline bool queue_work(struct workqueue_struct *wq,
static inline bool queue_delayed_work(struct workqueue_struct *wq,
static inline bool mod_delayed_work(struct workqueue_struct *wq,
static inline bool schedule_work_on(int cpu, struct work_struct *work)
static inline bool schedule_work(struct work_struct *work)
static inline bool schedule_delayed_work_on(int cpu, struct delayed_work *dwork,
static inline bool schedule_delayed_work(struct delayed_work *dwork,
static inline long work_on_cpu(int cpu, long (*fn)(void *), void *arg)
static inline long work_on_cpu_safe(int cpu, long (*fn)(void *), void *arg)
static inline int workqueue_sysfs_register(struct workqueue_struct *wq)
static inline void wq_watchdog_touch(int cpu) { }
#define work_data_bits(work) ((unsigned long *)(&(work)->data))
#define DECLARE_WORK(n, f)						\
#define DECLARE_DELAYED_WORK(n, f)					\
#define DECLARE_DEFERRABLE_WORK(n, f)					\
#define INIT_WORK(_work, _func)						\
#define INIT_WORK_ONSTACK(_work, _func)					\
#define INIT_WORK_ONSTACK_KEY(_work, _func, _key)			\
#define INIT_DELAYED_WORK(_work, _func)					\
#define INIT_DELAYED_WORK_ONSTACK(_work, _func)				\
#define INIT_DEFERRABLE_WORK(_work, _func)				\
#define INIT_DEFERRABLE_WORK_ONSTACK(_work, _func)			\
#define INIT_RCU_WORK(_work, _func)					\
#define INIT_RCU_WORK_ONSTACK(_work, _func)				\
#define work_pending(work) \
#define delayed_work_pending(w) \
#define alloc_ordered_workqueue(fmt, flags, args...)			\
#define create_workqueue(name)						\
#define create_freezable_workqueue(name)				\
#define create_singlethread_workqueue(name)				\
#define from_work(var, callback_work, work_fieldname)	\
#define flush_scheduled_work()						\
#define flush_workqueue(wq)						\
#define work_on_cpu(_cpu, _fn, _arg)			\
#define work_on_cpu_safe(_cpu, _fn, _arg)		\
	WQ_UNBOUND		= 1 << 1, 
	WQ_FREEZABLE		= 1 << 2, 
	WQ_MEM_RECLAIM		= 1 << 3, 
	WQ_HIGHPRI		= 1 << 4, 
	WQ_CPU_INTENSIVE	= 1 << 5, 
	WQ_SYSFS		= 1 << 6, 

	
	WQ_POWER_EFFICIENT	= 1 << 7,

	__WQ_DRAINING		= 1 << 16, 
	__WQ_ORDERED		= 1 << 17, 
	__WQ_LEGACY		= 1 << 18, 
	__WQ_ORDERED_EXPLICIT	= 1 << 19, 
extern int workqueue_unbound_exclude_cpumask(cpumask_var_t cpumask);
extern bool disable_work(struct work_struct *work);
extern bool disable_work_sync(struct work_struct *work);
extern bool enable_work(struct work_struct *work);
extern bool disable_delayed_work(struct delayed_work *dwork);
extern bool disable_delayed_work_sync(struct delayed_work *dwork);
extern bool enable_delayed_work(struct delayed_work *dwork);
extern void workqueue_set_min_active(struct workqueue_struct *wq,
extern void show_freezable_workqueues(void);
void workqueue_softirq_action(bool highpri);
void workqueue_softirq_dead(unsigned int cpu);
static inline bool enable_and_queue_work(struct workqueue_struct *wq,
#define alloc_ordered_workqueue_lockdep_map(fmt, flags, lockdep_map, args...)	\
	WQ_BH			= 1 << 0, 
	WQ_PERCPU		= 1 << 8, 

	__WQ_DESTROYING		= 1 << 15, 
	__WQ_DRAINING		= 1 << 16, 
