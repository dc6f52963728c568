
/*
 * Deliberately broken, never in the series: tools/wq-kunit check builds it
 * into the debug kernel and boots it alone (its suite is not workqueue_*)
 * to prove that a kernel report fails the run and names the case.  Re-initialising a delayed work whose timer is pending corrupts
 * the timer list; CONFIG_DEBUG_OBJECTS_TIMERS reports it (ODEBUG), while
 * the case's own assertion passes.
 */
static void broken_reinit_pending_delayed_work(struct kunit *test)
{
	struct wq_test_item *item = wq_test_item(test, 0, system_wq, HZ, 1, false);

	KUNIT_ASSERT_TRUE(test, queue_delayed_work(system_wq, &item->dwork, HZ));
	INIT_DELAYED_WORK(&item->dwork, wq_test_dwork_fn);
	KUNIT_EXPECT_EQ(test, atomic_read(&item->runs), 0);
}

static struct kunit_case broken_workqueue_cases[] = {
	KUNIT_CASE(broken_reinit_pending_delayed_work),
	{}
};

static struct kunit_suite broken_workqueue_suite = {
	.name = "broken_workqueue",
	.init = wq_test_init,
	.exit = wq_test_exit,
	.test_cases = broken_workqueue_cases,
};

kunit_test_suite(broken_workqueue_suite);
