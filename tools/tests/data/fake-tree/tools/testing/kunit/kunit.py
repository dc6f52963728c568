# SPDX-License-Identifier: GPL-2.0
"""A stand-in for kunit.py in the tools' tests: build, exec and parse
replay consoles recorded from real boots (tools/tests/data/replay/).

What a build or boot does is read from markers in the tree's
kernel/workqueue.c, which a test (or a test mutant) writes:
  /* replay-build: error */               the build fails as gcc would
  /* replay: NAME [if TEXT] [sleep S] */  exec prints NAME.console (the
      first marker whose TEXT is in the kernel arguments, default "pass"),
      then waits S seconds; NAME "exec-error" fails as QEMU would
A boot with kunit.filter_glob=broken_workqueue.* replays "broken", one
with workqueue.kunit_report= the placement report.
parse writes the recording's JSON, as kunit.py parse did on it, and
exits as it did.
"""

import os
import re
import sys
import time

TREE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
	os.path.abspath(__file__)))))
REPLAY = os.environ.get('WQ_KUNIT_REPLAY', '')
# kunit.py parse's exit status on each recording.
COMPLETE = {'pass': 0, 'fail': 1, 'hang': 1, 'no-results': 1, 'broken': 0, 'report': 0}


def _opt(argv, name):
	return [a.split('=', 1)[1] for a in argv if a.startswith(f'--{name}=')]


def _markers(kind):
	with open(os.path.join(TREE, 'kernel', 'workqueue.c'), encoding='utf-8') as f:
		return re.findall(r'/\* ' + kind + r': (.*?) \*/', f.read())


def build(argv):
	out = _opt(argv, 'build_dir')[0]
	if 'error' in _markers('replay-build'):
		print("kernel/workqueue.c:14:2: error: 'wq_mutant' undeclared (first use "
		      "in this function)")
		print('make[3]: *** [scripts/Makefile.build:250: kernel/workqueue.o] Error 1')
		return 1
	os.makedirs(os.path.join(out, 'kernel'), exist_ok=True)
	for name in ('vmlinux', 'kernel/workqueue.o', 'kernel/.workqueue.o.cmd'):
		with open(os.path.join(out, name), 'w', encoding='utf-8') as f:
			f.write('built\n')
	with open(os.path.join(out, '.config'), 'w', encoding='utf-8') as f:
		f.write(''.join(k + '\n' for k in _opt(argv, 'kconfig_add')))
	return 0


def execute(argv):
	args = ' '.join(_opt(argv, 'kernel_args'))
	name, sleep = 'pass', 0.0
	for marker in _markers('replay'):
		words = marker.split()
		cond = words[words.index('if') + 1] if 'if' in words else ''
		if cond in args:
			name = words[0]
			sleep = float(words[words.index('sleep') + 1]) if 'sleep' in words else 0.0
			break
	if 'broken_workqueue' in args:
		name = 'broken'
	if 'workqueue.kunit_report=' in args:
		name = 'report'
	if name == 'exec-error':
		print('qemu-system-arm: -dtb biglittle-8cpu-1024m.dtb: No such file or directory',
		      file=sys.stderr)
		return 1
	with open(os.path.join(REPLAY, f'{name}.console'), encoding='utf-8') as f:
		for line in f:
			if name == 'report':
				# The recording's configuration, made the one asked for.
				for key in ('power_efficient', 'kunit_report'):
					asked = re.search(key + r'=(\w+)', args)
					line = re.sub(key.replace('kunit_report', 'mask') + r'=\w+',
						      f"{key.replace('kunit_report', 'mask')}={asked.group(1)}",
						      line) if asked else line
			sys.stdout.write(line)
			sys.stdout.flush()
	with open(os.path.join(_opt(argv, 'build_dir')[0], 'printed-at'), 'w',
		  encoding='utf-8') as f:
		f.write(f'{time.time()}\n')
	time.sleep(sleep)
	return 0


def parse(argv):
	with open(argv[-1], encoding='utf-8', errors='replace') as f:
		console = f.read()
	for name, status in COMPLETE.items():
		with open(os.path.join(REPLAY, f'{name}.console'), encoding='utf-8') as f:
			if f.read() == console or (name == 'report' and 'report: mask=' in console):
				with open(os.path.join(REPLAY, f'{name}.json'), encoding='utf-8') as src, \
				     open(_opt(argv, 'json')[0], 'w', encoding='utf-8') as dst:
					dst.write(src.read())
				return status
	return 1


if __name__ == '__main__':
	sys.exit({'build': build, 'exec': execute, 'parse': parse}[sys.argv[1]](sys.argv[2:]))
