# SPDX-License-Identifier: GPL-2.0
"""The commands that build the suite into a kernel and boot it: run, the
gate (check) and soak, from their parsed arguments."""

import argparse
import os

from ..base import cpu_hogs, repo_paths
from ..base.messages import say
from ..build import runner
from ..configs import arches, board, boot_configs, kernel_versions
from ..gate import gate_check
from ..tree import kernel_trees
from . import options
from .options import Usage

RUN = 'wq-kunit run'	# the command whose --help a refusal of run points to


def run(args: argparse.Namespace) -> int:
	# What the command line alone tells wrong first, before apt-cache or a tree.
	arch = arches.get(args.arch)
	smp = args.smp or min(arch.cpus, arch.max_cpus)
	if smp > arch.max_cpus:
		most = f'1 to {arch.max_cpus} CPUs' if arch.max_cpus > 1 else 'one CPU'
		raise Usage(f'--arch {arch.name} boots {most}, not {smp}', RUN)
	if args.debug and arch.name != arches.DEFAULT:
		raise Usage(f'--debug is the {arches.DEFAULT} debug build: not with --arch {arch.name}', RUN)
	if args.tree and args.kernel:
		raise Usage('--kernel and --tree exclude each other', RUN)
	options.writable(args.json, '--json')
	if args.tree and args.build_dir and _inside(args.build_dir,
						    os.path.join(repo_paths.cache_dir(), 'build')):
		raise Usage('--build-dir: the cache\'s build directories belong to its own '
			    'trees; give --tree a build directory outside it', RUN)
	if args.tree:
		tree = kernel_trees.check_tree(args.tree)
		version = kernel_trees.tree_version(tree)
	else:
		tree = None
		version = kernel_versions.check(args.kernel) if args.kernel else kernel_versions.default_version()
	req = runner.BuildRequest(version, tree, args.debug, args.build_dir, args.jobs,
				  arch=arch.name)
	out = runner.run(req, runner.ExecRequest(boot_configs.select(args.boot, version, arch=arch.name),
						 args.timeout,
						 (smp,), kunit_args=args.kunit_args,
						 json=args.json,
						 board=board.HOMOGENEOUS if args.homogeneous
						 else arch.board))
	print(out.counts.line())
	return 0 if out.counts.failed == 0 else 1


def check(args: argparse.Namespace) -> int:
	ok = gate_check.check(args.boot, args.jobs, args.timeout, args.smp, not args.no_debug)
	return 0 if ok else 1


def soak(args: argparse.Namespace) -> int:
	versions = options.versions(args)
	selected = {v: boot_configs.select(args.boot, v) for v in versions}
	total = runner.Outcome()
	lines = []
	with cpu_hogs.hogs(args.load) as hogs:
		if hogs:
			say(f'host load: {hogs} busy processes')
		for version in versions:
			out = runner.run(runner.BuildRequest(version, jobs=args.jobs),
					 runner.ExecRequest(selected[version], args.timeout, args.smp,
							    args.runs))
			bad = [b for b in out.boots if not b.judged.passed]
			lines.append(f'soak {version}: {len(out.boots)} boots '
				     f'(CPUs {",".join(map(str, args.smp))}, '
				     f'{"under" if hogs else "without"} host load), '
				     f'{len(bad)} with failures')
			lines += [f'  {b.label}: {b.judged.counts.line()} ({b.console})' for b in bad]
			total.boots += out.boots
	gate_check.summary(lines, total.counts)
	return 0 if total.counts.failed == 0 else 1


def _inside(path: str, folder: str) -> bool:
	path, folder = os.path.realpath(path), os.path.realpath(folder)
	return path == folder or path.startswith(folder + os.sep)
