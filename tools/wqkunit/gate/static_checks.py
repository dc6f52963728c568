# SPDX-License-Identifier: GPL-2.0
"""The gate's static checks of what the series builds, as a maintainer's
bot runs them: gcc with W=1 and sparse on the series' objects, only
their warnings counted, and kernel-doc on the files it creates."""

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from typing import Iterable, List, Sequence, Tuple

from ..base import digest_stamps, file_locks
from ..base.messages import say
from ..base.process_tree import run_tree
from ..build import runner
from ..build.kunitpy import ccache_env
from ..configs import arches
from ..tree import series
from .gate_steps import Step

# Defined for the static checks' compile only: its object is put back afterwards.
REPORT_SYMBOL = 'CONFIG_WQ_PLACEMENT_REPORT'


def w1(version: str, tree: str) -> Step:
	"""The static checks a maintainer's bot runs, on the objects the
	series builds (OBJECTS): gcc with W=1 and sparse (C=1) find no warning,
	the placement report (CONFIG_WQ_PLACEMENT_REPORT, which no gate build
	enables) compiled in too; and kernel-doc finds nothing to say of the
	files the series creates.  Under the tree's lock.  The build
	directory's objects and their command files are put back afterwards:
	the next build redoes nothing.  Skipped when it passed for the inputs
	of the build directory's last build (digest_stamps.BUILD), which it shares."""
	req = runner.BuildRequest(version)
	build_dir = req.build_path
	objs = [os.path.join(build_dir, o) for o in series.OBJECTS]
	keep = objs + [os.path.join(os.path.dirname(o), f'.{os.path.basename(o)}.cmd')
		       for o in objs]
	os.makedirs(req.logs, exist_ok=True)
	log = os.path.join(req.logs, 'w1.log')
	built, passed = os.path.join(build_dir, digest_stamps.BUILD), os.path.join(build_dir, digest_stamps.W1)
	name = f'W=1, sparse, kernel-doc {version}'
	what = f'{version}: W=1, sparse and kernel-doc'
	with file_locks.held(req.lock_path, say), \
	     tempfile.TemporaryDirectory(prefix='wq-kunit-w1.') as saved:
		inputs = digest_stamps.read(built)
		if inputs and inputs == digest_stamps.read(passed):
			say(f'{what}: no warning (nothing it is built from changed since it last passed)')
			return Step(name, True)
		with contextlib.suppress(FileNotFoundError):
			os.remove(passed)
		missing = [os.path.relpath(o, build_dir) for o in objs if not os.path.exists(o)]
		if missing:
			say(f'{what}: not checked, the build failed')
			return Step(name, False, f'no {missing[0]}: the build failed')
		for i, path in enumerate(keep):
			if os.path.exists(path):
				shutil.copy2(path, os.path.join(saved, str(i)))
		created = series.created(series.carried(version))
		try:
			for obj in objs:
				os.remove(obj)
			with open(log, 'w', encoding='utf-8') as f:
				arm = arches.ARCHES['arm']
				rc = run_tree(['make', 'ARCH=arm', f'CROSS_COMPILE={arm.cross}',
					       f'CC={arm.gcc}', f'O={build_dir}', 'W=1', 'C=1',
					       f'KCFLAGS=-D{REPORT_SYMBOL}'] + list(series.OBJECTS),
					      cwd=tree, stdout=f, stderr=subprocess.STDOUT,
					      env=ccache_env())
				doc_rc = kernel_doc(tree, [p for p in created if p.endswith(('.c', '.h'))
							    if os.path.isfile(os.path.join(tree, p))], f)
		finally:
			for i, path in enumerate(keep):
				if os.path.exists(os.path.join(saved, str(i))):
					shutil.copy2(os.path.join(saved, str(i)), path)
	with open(log, encoding='utf-8', errors='replace') as f:
		ours, upstream = ours_and_upstream(f, created)
	for line in ours:
		print(f'  {line}')
	if upstream:
		say(f'{version}: {len(upstream)} warnings in files the series does not create, '
		    f'not counted (upstream\'s; {log})')
	ok = rc == 0 and doc_rc == 0 and not ours
	if ok and inputs:
		digest_stamps.write(passed, inputs)
	detail = f'{len(ours)} warnings, ' + (f'exit {rc}, ' if rc else '') + \
		(f'kernel-doc exit {doc_rc}, ' if doc_rc else '') + log
	say(f'{what}: {"no warning" if ok else detail}')
	return Step(name, ok, '' if ok else detail)


_WARNING = re.compile(r'^(\S+?):\d+(?::\d+)?: (?:warning|error):')


def ours_and_upstream(lines: Iterable[str], created: Sequence[str]) -> Tuple[List[str], List[str]]:
	"""The warning and error lines of @lines, split into those in a file
	of @created (the series' own files, relative to the tree) or with no
	file, and those in another file: a warning sparse gives for
	upstream's kernel/workqueue.c is not the series'."""
	ours, upstream = [], []
	for line in lines:
		line = line.rstrip()
		if 'warning:' not in line and 'error:' not in line:
			continue
		where = _WARNING.match(line)
		if where and not any(where.group(1).endswith(p) for p in created):
			upstream.append(line)
		else:
			ours.append(line)
	return ours, upstream


def kernel_doc(tree: str, files: Sequence[str], log) -> int:
	"""scripts/kernel-doc of @tree on @files, its output into @log: its
	exit status, non-zero on any warning (-Werror; -Wall where the script
	has it)."""
	if not files:
		return 0
	script = os.path.join(tree, 'scripts', 'kernel-doc')
	with open(script, encoding='utf-8', errors='replace') as f:
		every = ['-Wall'] if '-Wall' in f.read() else []
	cmd = ['perl', 'scripts/kernel-doc', '-none', '-Werror'] + every + list(files)
	log.write(f'$ {" ".join(cmd)}\n')
	log.flush()
	return subprocess.run(cmd, cwd=tree, stdout=log, stderr=subprocess.STDOUT,
			      check=False).returncode
