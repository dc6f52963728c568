# SPDX-License-Identifier: GPL-2.0
"""Build a kernel once, boot it many times, judge every boot: the one path
from build to verdict behind run, check, soak, mutate, bench, report and
alltests, driven by a build and an exec request (run_requests.py) as
kunit.py's own KunitBuildRequest and KunitExecRequest are.  Here the
tree is prepared and built for each Kconfig variant the boots need, and
the boots are run; each boot and its verdict is one_boot.py's."""

import concurrent.futures
import contextlib
import hashlib
import os
import time
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from ..base import debian_packages, file_locks, process_tree, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..base.phase_times import PHASES, PHASE_RUNS, phase
from ..configs import arches, boot_configs, kernel_versions
from ..configs.run_requests import BuildRequest, ExecRequest
from ..tree import fault_hooks, kernel_trees, series
from ..verdicts.boot_outcomes import Boot, Outcome
from .kunitpy import Kunit
from .one_boot import boot_once, explain, unbuilt


@contextlib.contextmanager
def prepared(req: BuildRequest, log: Callable[[str], None] = say) -> Iterator[Kunit]:
	"""The tree of @req with the series (and @req.broken) in it, locked,
	and a Kunit on its build directory."""
	series.patches(version=req.version)
	arch = arches.get(req.arch)
	needed = debian_packages.BUILD + arch.packages + ([] if req.tree else [kernel_versions.package(req.version)])
	with phase('packages'):
		debian_packages.ensure(needed, log)
	build_dir = req.build_path
	configs = list(arch.kunitconfigs) + ([repo_paths.DEBUG_CONFIG] if req.debug else [])
	with file_locks.held(req.lock_path, log):
		with phase('prepare'):
			tree = kernel_trees.user_tree(req.tree, log) if req.tree else \
				kernel_trees.cache_tree(req.version, log)
		# Debian's tree is ours, a git work tree: a build with the
		# inputs of the last one can be skipped.  A user's is built.
		kunit = Kunit(tree, build_dir, kunitconfigs=configs, arch=arch,
			      reuse=not req.tree)
		edits = {series.TEST_FILE: kernel_trees.appending(req.broken)} if req.broken else \
			fault_hooks.EDITS if req.fault_hooks else {}
		# Every file an edit may touch, edited or not: an object compiled
		# from an edit for another build must be rebuilt without it.
		with contextlib.ExitStack() as stack:
			for path in sorted({series.TEST_FILE, *fault_hooks.EDITS}):
				stack.enter_context(kernel_trees.edited(
					tree, path, edits.get(path),
					os.path.join(build_dir, series.object_of(path))))
			yield kunit


def variant_name(kconfig: Sequence[str]) -> str:
	"""The suffix of a Kconfig variant's build directory, from its lines:
	CONFIG_WQ_POWER_EFFICIENT_DEFAULT=y gives wq_power_efficient_default."""
	names = []
	for line in kconfig:
		symbol, _, value = line.partition('=')
		name = symbol.removeprefix('CONFIG_').lower()
		names.append(name if value == 'y' else f'{name}={value}')
	return ','.join(names)


def run(req: BuildRequest, ex: ExecRequest, log: Callable[[str], None] = say) -> Outcome:
	"""Build what @ex's boots need (built()), then boot it."""
	with contextlib.ExitStack() as held:
		return built(req, ex, held, log)[1]()


Booter = Callable[..., Outcome]


def built(req: BuildRequest, ex: ExecRequest, held: contextlib.ExitStack,
	  log: Callable[[str], None] = say) -> Tuple[str, Booter]:
	"""Prepare @req's tree (prepared()) and build there what @ex's boots
	need; the tree, and what boots them (leaving out the boots named in
	its `skip`).  The tree's lock is let go once the builds are done: a
	boot needs only its build directory, which @held holds shared
	(build_lock()) so that no build replaces it meanwhile, while another
	build of the same tree (another architecture, the debug build) may go
	on beside it."""
	prepare = PHASES['prepare']
	with prepared(req, log) as base:
		variants = build_variants(base, req, ex, log)
		for kunit, _, _, _ in variants:
			held.enter_context(file_locks.held(build_lock(kunit), log, shared=True))
	spent = PHASES['prepare'] - prepare

	def boot(skip: Sequence[str] = ()) -> Outcome:
		out = boot_variants([(k, [t for t in todo if t[0].name not in skip], b, e)
				     for k, todo, b, e in variants], req, ex, log, spent)
		out.tree = base.tree
		if ex.explain:
			explain(out.boots)
		return out
	return base.tree, boot


def build_lock(kunit: Kunit) -> str:
	"""The lock of @kunit's build directory: exclusive for a build, shared
	by its boots."""
	digest = hashlib.sha1(os.path.abspath(kunit.build_dir).encode()).hexdigest()[:12]
	return os.path.join(repo_paths.cache_dir(), 'locks', f'build-{digest}.lock')


Built = Tuple[Kunit, List[Tuple[boot_configs.Boot, int]], float, Optional[str]]


def build_variants(base: Kunit, req: BuildRequest, ex: ExecRequest,
		   log: Callable[[str], None] = say) -> List[Built]:
	"""Build @base's tree once per Kconfig variant @ex's boots need, each
	variant in a build directory of its own: (its Kunit, its boots with
	their CPU counts, build seconds, why it did not build or None)."""
	os.makedirs(req.logs, exist_ok=True)
	built = []
	for kconfig, group in boot_configs.by_build(ex.boots):
		kunit = base.variant(variant_name(kconfig)) if kconfig else base
		build, error = build_once(kunit, req, kconfig, req.logs, log)
		todo = []
		for _ in range(ex.repeat):
			for smp in ex.smps:
				for b in group:
					if b.args_for(smp) is None:
						log(f'not booted: [{b.name}] names CPUs that a board '
						    f'of {smp} lacks ({" ".join(b.kernel_args)})')
					else:
						todo.append((b, smp))
		built.append((kunit, todo, build, error))
	return built


def boot_variants(built: List[Built], req: BuildRequest, ex: ExecRequest,
		  log: Callable[[str], None] = say, prepare: float = 0.0) -> Outcome:
	"""Boot each of @built's boots (@ex.parallel at a time per variant);
	a variant that did not build gives a build-error verdict for each."""
	out = Outcome(tree=built[0][0].tree if built else '')
	for kunit, todo, build, error in built:
		if error:
			done: Iterable[Boot] = (unbuilt(req, ex, b, smp, error) for b, smp in todo)
		else:
			done = _boot_all(kunit, req, ex, todo, req.logs, log)
		for one in done:
			out.boots.append(one)
			out.lines.append(f'{one.label}: {one.judged.counts.line()}; '
					 f'prepare {prepare:.1f} s, build {build:.1f} s, '
					 f'boot to last result {one.seconds:.1f} s')
			log(out.lines[-1])
			prepare = 0.0
	return out


def build_and_boot(base: Kunit, req: BuildRequest, ex: ExecRequest,
		   log: Callable[[str], None] = say, prepare: float = 0.0) -> Outcome:
	"""build_variants() and boot_variants() under the caller's lock of the
	tree (a mutant stays in it for its boots)."""
	out = boot_variants(build_variants(base, req, ex, log), req, ex, log, prepare)
	out.tree = base.tree
	return out


def _boot_all(kunit: Kunit, req: BuildRequest, ex: ExecRequest,
	      todo: List[Tuple[boot_configs.Boot, int]], logs: str,
	      log: Callable[[str], None]) -> Iterator[Boot]:
	"""boot_once() each of @todo, @ex.parallel at a time (each boot waits
	on its QEMU: threads are enough); the verdicts in @todo's order, each
	as soon as it and those before it are in."""
	if ex.parallel <= 1 or len(todo) <= 1:
		for b, smp in todo:
			yield boot_once(kunit, req, ex, b, smp, logs, log)
		return
	with phase('boot'), concurrent.futures.ThreadPoolExecutor(ex.parallel) as pool:
		PHASE_RUNS['boot'] += len(todo) - 1
		try:
			yield from pool.map(lambda one: boot_once(kunit, req, ex, one[0], one[1],
								  logs, log, timed=False), todo)
		except BaseException:
			process_tree.end_all()
			raise


def build_once(kunit: Kunit, req: BuildRequest, kconfig: Sequence[str], logs: str,
	       log: Callable[[str], None] = say) -> Tuple[float, Optional[str]]:
	"""Build @kunit with @kconfig, its log in @logs (made if missing):
	(seconds, None), or (seconds, why not)."""
	extra = f' with {" ".join(kconfig)}' if kconfig else ''
	os.makedirs(logs, exist_ok=True)
	log(f'building {req.version}{extra} in {kunit.build_dir}')
	start = time.monotonic()
	with phase('build'), file_locks.held(build_lock(kunit), log):
		try:
			build = kunit.build(req.jobs, os.path.join(logs, 'build.log'), kconfig)
		except WqKunitError as e:
			log(f'FAILED to build {req.version}{extra}: {e}')
			return time.monotonic() - start, str(e)
	log('up to date: nothing it is built from changed since its last build'
	    if kunit.skipped else f'built in {build:.1f} s')
	return build, None


