 * its cpus_allowed.  If @cpu is in @pool's cpumask which didn't have any
 * online CPU before, cpus_allowed of all its workers should be restored.
 */
static void restore_unbound_workers_cpumask(struct worker_pool *pool, int cpu)
{
	static cpumask_t cpumask;
	struct worker *worker;

	lockdep_assert_held(&wq_pool_attach_mutex);

	/* is @cpu allowed for @pool? */
	if (!cpumask_test_cpu(cpu, pool->attrs->cpumask))
		return;

	cpumask_and(&cpumask, pool->attrs->cpumask, cpu_online_mask);

	/* as we're called from CPU_ONLINE, the following shouldn't fail */
	for_each_pool_worker(worker, pool)
		WARN_ON_ONCE(set_cpus_allowed_ptr(worker->task, &cpumask) < 0);
}

int workqueue_prepare_cpu(unsigned int cpu)
{
	struct worker_pool *pool;

	for_each_cpu_worker_pool(pool, cpu) {
		if (pool->nr_workers)


	if (!wq->wq_dev)
		return;

	wq->wq_dev = NULL;
	device_unregister(&wq_dev->dev);
}
#else	/* CONFIG_SYSFS */
static void workqueue_sysfs_unregister(struct workqueue_struct *wq)	{ }
#endif	/* CONFIG_SYSFS */

/*
 * Workqueue watchdog.
 *
 * Stall may be caused by various bugs - missing WQ_MEM_RECLAIM, illegal
 * flush dependency, a concurrency managed work item which stays RUNNING
 * indefinitely.  Workqueue stalls can be very difficult to debug as the
 * usual warning mechanisms don't trigger and internal workqueue state is
 * largely opaque.
 *
 * Workqueue watchdog monitors all worker pools periodically and dumps
 * state if some pools failed to make forward progress for a while where
 * forward progress is defined as the first item on ->worklist changing.
 *
 * This mechanism is controlled through the kernel parameter
 * "workqueue.watchdog_thresh" which can be updated at runtime through the

/* The interface lines of Debian's 6.1 and 6.12 kernel/workqueue.c that
 * tools/wq-kunit coverage reads, for the tools' tests. */
EXPORT_SYMBOL(system_wq);
EXPORT_SYMBOL_GPL(system_highpri_wq);
EXPORT_SYMBOL_GPL(system_long_wq);
EXPORT_SYMBOL_GPL(system_unbound_wq);
EXPORT_SYMBOL_GPL(system_freezable_wq);
EXPORT_SYMBOL_GPL(system_power_efficient_wq);
EXPORT_SYMBOL_GPL(system_freezable_power_efficient_wq);
EXPORT_SYMBOL_GPL(__init_work);
EXPORT_SYMBOL_GPL(destroy_work_on_stack);
EXPORT_SYMBOL_GPL(destroy_delayed_work_on_stack);
EXPORT_SYMBOL(queue_work_on);
EXPORT_SYMBOL_GPL(queue_work_node);
EXPORT_SYMBOL(delayed_work_timer_fn);
EXPORT_SYMBOL(queue_delayed_work_on);
EXPORT_SYMBOL_GPL(mod_delayed_work_on);
EXPORT_SYMBOL(queue_rcu_work);
EXPORT_SYMBOL(__flush_workqueue);
EXPORT_SYMBOL_GPL(drain_workqueue);
EXPORT_SYMBOL_GPL(flush_work);
EXPORT_SYMBOL_GPL(cancel_work_sync);
EXPORT_SYMBOL(flush_delayed_work);
EXPORT_SYMBOL(flush_rcu_work);
EXPORT_SYMBOL(cancel_work);
EXPORT_SYMBOL(cancel_delayed_work);
EXPORT_SYMBOL(cancel_delayed_work_sync);
EXPORT_SYMBOL_GPL(execute_in_process_context);
EXPORT_SYMBOL_GPL(alloc_workqueue);
EXPORT_SYMBOL_GPL(destroy_workqueue);
EXPORT_SYMBOL_GPL(workqueue_set_max_active);
EXPORT_SYMBOL(current_work);
EXPORT_SYMBOL_GPL(workqueue_congested);
EXPORT_SYMBOL_GPL(work_busy);
EXPORT_SYMBOL_GPL(set_worker_desc);
EXPORT_SYMBOL_GPL(work_on_cpu_key);
EXPORT_SYMBOL_GPL(work_on_cpu_safe_key);
EXPORT_SYMBOL(__warn_flushing_systemwide_wq);
	__ATTR(pool_ids, 0444, wq_pool_ids_show, NULL),
	__ATTR(nice, 0644, wq_nice_show, wq_nice_store),
	__ATTR(cpumask, 0644, wq_cpumask_show, wq_cpumask_store),
	__ATTR(numa, 0644, wq_numa_show, wq_numa_store),
	__ATTR(cpumask, 0644, wq_unbound_cpumask_show,
static DEVICE_ATTR_RO(per_cpu);
static DEVICE_ATTR_RW(max_active);
module_param_named(disable_numa, wq_disable_numa, bool, 0444);
module_param_named(power_efficient, wq_power_efficient, bool, 0444);
module_param_named(debug_force_rr_cpu, wq_debug_force_rr_cpu, bool, 0644);
module_param_cb(watchdog_thresh, &wq_watchdog_thresh_ops, &wq_watchdog_thresh,
EXPORT_SYMBOL(system_percpu_wq);
EXPORT_SYMBOL_GPL(system_dfl_wq);
EXPORT_SYMBOL_GPL(system_bh_wq);
EXPORT_SYMBOL_GPL(system_bh_highpri_wq);
EXPORT_SYMBOL_GPL(disable_work);
EXPORT_SYMBOL_GPL(disable_work_sync);
EXPORT_SYMBOL_GPL(enable_work);
EXPORT_SYMBOL_GPL(disable_delayed_work);
EXPORT_SYMBOL_GPL(disable_delayed_work_sync);
EXPORT_SYMBOL_GPL(enable_delayed_work);
EXPORT_SYMBOL_GPL(alloc_workqueue_lockdep_map);
	__ATTR(affinity_scope, 0644, wq_affn_scope_show, wq_affn_scope_store),
	__ATTR(affinity_strict, 0644, wq_affinity_strict_show, wq_affinity_strict_store),
static DEVICE_ATTR_RO(cpumask_requested);
static DEVICE_ATTR_RO(cpumask_isolated);
static DEVICE_ATTR_RW(cpumask);
module_param_named(cpu_intensive_thresh_us, wq_cpu_intensive_thresh_us, ulong, 0644);
module_param_named(cpu_intensive_warning_thresh, wq_cpu_intensive_warning_thresh, uint, 0644);
module_param_cb(default_affinity_scope, &wq_affn_dfl_ops, NULL, 0644);
module_param_named(panic_on_stall, wq_panic_on_stall, uint, 0644);
__setup("workqueue.unbound_cpus=", workqueue_unbound_cpus_setup);
