# SPDX-License-Identifier: GPL-2.0
"""A stand-in for kunit.py in the tools' tests: build, exec and parse
replay consoles recorded from real boots (tools/tests/data/replay/).

What a build or boot does is read from markers in the tree's
kernel/workqueue.c, which a test (or a test mutant) writes:
  /* replay-build: error */               the build fails as gcc would
  /* replay: NAME [if TEXT] [sleep S] [wait] */  exec prints NAME.console
      (the first marker whose TEXT is in the kernel arguments, default
      "pass"), then with "wait" waits for the file "release" in the build
      directory, then S seconds; NAME "exec-error" fails as QEMU would
A boot with kunit.filter_glob=broken_workqueue.* replays "broken", one
built with the placement report (a build directory named after
CONFIG_WQ_PLACEMENT_REPORT) the report.
parse writes the recording's JSON, as kunit.py parse did on it, and
exits as it did.
"""

import functools
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
	os.makedirs(os.path.join(out, 'kernel', 'tests'), exist_ok=True)
	objects = ['kernel/workqueue.o'] + [
		f'kernel/tests/workqueue_{n}kunit.o' for n in ('', 'percpu_', 'unbound_', 'hotplug_')]
	cmds = [os.path.join(os.path.dirname(o), '.' + os.path.basename(o) + '.cmd')
		for o in objects]
	for name in ['vmlinux'] + objects + cmds:
		with open(os.path.join(out, name), 'w', encoding='utf-8') as f:
			f.write('built\n')
	with open(os.path.join(out, '.config'), 'w', encoding='utf-8') as f:
		f.write(''.join(k + '\n' for k in _opt(argv, 'kconfig_add')))
	# The build's UTS_VERSION, which exec prints as the kernel would.
	os.makedirs(os.path.join(out, 'include', 'generated'), exist_ok=True)
	with open(os.path.join(out, 'include', 'generated', 'utsversion.h'), 'w',
		  encoding='utf-8') as f:
		f.write(f'#define UTS_VERSION "#{int(time.time() * 1000)} SMP replay"\n')
	return 0


def _uts(build_dir):
	try:
		with open(os.path.join(build_dir, 'include', 'generated', 'utsversion.h'),
			  encoding='utf-8') as f:
			return f.read().split('"')[1]
	except OSError:
		return '#0 SMP unbuilt'


def _as_built(line, uts):
	"""The recording's "Linux version" line with the UTS_VERSION @uts,
	its topology lines those of the board asked for (WQ_KUNIT_BOARD), of
	its CPU count (WQ_KUNIT_SMP): the recording has 8, 4 LITTLE first.
	None for the line of a CPU the board lacks; on a board of more than
	8, each CPU's line stands for as many of its kind, lines apart."""
	if os.environ.get('WQ_KUNIT_BOARD') != 'biglittle':
		line = re.sub(r'(online capacity )\d+', r'\g<1>1024', line)
	cpus = int(os.environ.get('WQ_KUNIT_SMP') or 8)
	cpu = re.search(r'topology: cpu(\d+) ', line)
	if cpu and cpus > 8:
		n, each = int(cpu.group(1)), cpus // 8
		first = n * each if n < 4 else cpus // 2 + (n - 4) * each
		return '\n'.join(line[:cpu.start(1)] + str(c) + line[cpu.end(1):]
				 for c in range(first, first + each))
	said = re.search(r'wq_unbound_cpumask at boot: (\S+)', line)
	if said and cpus > 8:
		line = line[:said.start(1)] + f'0-{cpus - 1}' + line[said.end(1):]
	if cpu and cpus < 8:
		n = int(cpu.group(1))
		# LITTLE 0..cpus/2-1 and big cpus/2..cpus-1: the recording's 0.. and 4..
		if n >= 4:
			n -= 4 - cpus // 2
		if n >= cpus or (int(cpu.group(1)) < 4 and n >= cpus // 2):
			return None
		line = line[:cpu.start(1)] + str(n) + line[cpu.end(1):]
	return re.sub(r'#\d+ SMP .*$', uts, line) if 'Linux version ' in line else line


def _cpus(value):
	"""The CPUs of a CPU list, flags such as "domain," left out."""
	cpus = set()
	for part in value.split(','):
		low, _, high = part.partition('-')
		if low.isdigit() and (not high or high.isdigit()):
			cpus |= set(range(int(low), int(high or low) + 1))
	return cpus


def _unbound(line, args, arch):
	"""The recording's boot-time wq_unbound_cpumask (every CPU) made what a
	kernel booted with @args has: isolcpus= and nohz_full= CPUs out, within
	workqueue.unbound_cpus= unless that leaves none; UML has one CPU."""
	said = re.search(r'wq_unbound_cpumask at boot: (\S+)', line)
	if not said:
		return line
	mask = _cpus(said.group(1)) if arch != 'um' else {0}
	for arg in args.split():
		key, _, value = arg.partition('=')
		if key in ('isolcpus', 'nohz_full'):
			mask -= _cpus(value)
		elif key == 'workqueue.unbound_cpus' and mask & _cpus(value):
			mask &= _cpus(value)
	shown = ','.join(str(c) for c in sorted(mask))
	return line[:said.start(1)] + shown + line[said.end(1):]


def _maxcpus(line, args):
	"""A topology line of a CPU that maxcpus= in @args left down: offline."""
	most = re.search(r'\bmaxcpus=(\d+)', args)
	cpu = re.search(r'topology: cpu(\d+) online', line)
	if most and cpu and int(cpu.group(1)) >= int(most.group(1)):
		return line.replace(cpu.group(0), cpu.group(0)[:-len('online')] + 'offline')
	return line


def _node(line):
	"""A topology line with the node of its CPU on the board asked for
	(WQ_KUNIT_NUMA: its halves in two nodes), where the recording has none."""
	found = re.search(r'topology: cpu(\d+) .* package -?\d+ (?!node)', line)
	if not found:
		return line
	numa, cpus = int(os.environ.get('WQ_KUNIT_NUMA') or 0), int(os.environ.get('WQ_KUNIT_SMP') or 8)
	node = int(found.group(1)) * numa // cpus if numa else 0
	return line[:found.end()] + f'node {node} ' + line[found.end():]


@functools.lru_cache(maxsize=None)
def _version():
	"""The tree's X.Y, from its Makefile (read once)."""
	here = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
	with open(os.path.join(here, 'Makefile'), encoding='utf-8') as f:
		text = f.read()
	found = [re.search(rf'^{k} = (\d+)', text, re.M) for k in ('VERSION', 'PATCHLEVEL')]
	return tuple(int(m.group(1)) for m in found) if all(found) else (6, 1)


def _mode(line, args, build_dir):
	"""The recording's power-efficient mode made what a kernel booted with
	@args has: on with workqueue.power_efficient=1 or a build with the
	Kconfig default on, and from 6.12 with nohz_full=."""
	nohz = 'nohz_full=' in args
	on = 'workqueue.power_efficient=1' in args or 'power_efficient_default' in build_dir or \
		(nohz and _version() >= (6, 12))
	return re.sub(r'workqueue\.power_efficient=\d nohz_full=\d',
		      f'workqueue.power_efficient={int(on)} nohz_full={int(nohz)}', line)


def execute(argv):
	args = ' '.join(_opt(argv, 'kernel_args'))
	name, sleep, wait = 'pass', 0.0, False
	for marker in _markers('replay'):
		words = marker.split()
		cond = words[words.index('if') + 1] if 'if' in words else ''
		if cond in args:
			name = words[0]
			sleep = float(words[words.index('sleep') + 1]) if 'sleep' in words else 0.0
			wait = 'wait' in words
			break
	if 'broken_workqueue' in args:
		name = 'broken'
	if 'wq_placement_report' in _opt(argv, 'build_dir')[0]:
		name = 'report'
	if name == 'exec-error':
		print('qemu-system-arm: -dtb biglittle-8cpu-1024m.dtb: No such file or directory',
		      file=sys.stderr)
		return 1
	uts = _uts(_opt(argv, 'build_dir')[0])
	with open(os.path.join(REPLAY, f'{name}.console'), encoding='utf-8') as f:
		for line in f:
			built = _as_built(line.rstrip('\n'), uts)
			for line in built.split('\n') if built is not None else ():
				line = _unbound(line, args, (_opt(argv, 'arch') or [''])[0]) + '\n'
				line = _maxcpus(_node(line), args)
				line = _mode(line, args, _opt(argv, 'build_dir')[0])
				if name == 'report':
					# The recording's mode, made the one asked for.
					asked = re.search(r'power_efficient=(\w+)', args)
					line = re.sub(r'power_efficient=\w+', f'power_efficient='
						      f'{asked.group(1)}', line) if asked else line
				sys.stdout.write(line)
				sys.stdout.flush()
	build_dir = _opt(argv, 'build_dir')[0]
	if wait:
		# Until the tools showed the last line (they write "release"):
		# a reader that buffered the output until we exit never does.
		release = os.path.join(build_dir, 'release')
		for _ in range(300):
			if os.path.exists(release):
				break
			time.sleep(0.1)
		with open(os.path.join(build_dir, 'waited'), 'w', encoding='utf-8') as f:
			f.write('released\n' if os.path.exists(release) else 'never released\n')
	time.sleep(sleep)
	return 0


def _normal(console):
	"""@console without what the board changes: its CPUs' lines."""
	built = (_as_built(l, '#N') for l in console.splitlines() if 'topology: cpu' not in l)
	return '\n'.join(_mode(re.sub(r'wq_unbound_cpumask at boot: \S+',
				     'wq_unbound_cpumask at boot: N', l), '', '')
			 for l in built)


def parse(argv):
	with open(argv[-1], encoding='utf-8', errors='replace') as f:
		console = _normal(f.read())
	for name, status in COMPLETE.items():
		with open(os.path.join(REPLAY, f'{name}.console'), encoding='utf-8') as f:
			if _normal(f.read()) == console or (name == 'report' and 'workqueue_placement: mask=' in console):
				with open(os.path.join(REPLAY, f'{name}.json'), encoding='utf-8') as src, \
				     open(_opt(argv, 'json')[0], 'w', encoding='utf-8') as dst:
					dst.write(src.read())
				return status
	return 1


if __name__ == '__main__':
	sys.exit({'build': build, 'exec': execute, 'parse': parse}[sys.argv[1]](sys.argv[2:]))
