# SPDX-License-Identifier: GPL-2.0
"""Named boot configurations, read from kunit/boots.ini."""

import configparser
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError


# In kernel_args: the upper half of the board's CPUs (its big ones), and
# the number of CPUs in its lower half (for maxcpus=).
BIG = '{big}'
HALF = '{half}'
# In unbound_cpumask and online: every CPU of the board, and its lower half.
ALL = '{all}'
LITTLE = '{little}'
# What the case that checks the boot-time mask prints of it.
UNBOUND_CASE = 'workqueue_unbound.unbound_cpumask_honours_boot_parameters'
UNBOUND_SAID = 'wq_unbound_cpumask at boot:'
UNBOUND_LINE = re.compile(re.escape(UNBOUND_SAID) + r' ([0-9,-]+)')
# What the case that checks power-efficient mode prints of it.
MODE_CASE = 'workqueue_power_efficient.power_efficient_mode_matches_boot'
MODE_LINE = re.compile(r'workqueue\.power_efficient=([01]) nohz_full=([01])')
# The keys that may change from a version on ("KEY since X.Y = VALUE").
SINCE_KEYS = ('unbound_cpumask', 'power_efficient')


@dataclass(frozen=True)
class Boot:
	name: str
	description: str
	kernel_args: List[str]
	kernels: Optional[List[str]]	# None: every version; "X.Y+": that one and later
	kconfig: Tuple[str, ...] = ()	# Kconfig lines on top of the kunitconfig
	unbound_cpumask: str = ALL	# what wq_unbound_cpumask must be at boot
	module: str = ''		# the suite's module, loaded by the guest's /init
	numa: int = 0			# NUMA nodes of the board, halves of the CPUs
	arches: Optional[Tuple[str, ...]] = None	# None: every architecture
	online: str = ALL		# the CPUs online at boot, the rest possible
	power_efficient: str = 'off'	# the mode the kernel must boot in
	# "KEY since X.Y = VALUE": (KEY, X.Y, VALUE), what KEY is from X.Y on
	since: Tuple[Tuple[str, str, str], ...] = ()

	def applies_to(self, version: Optional[str], arch: Optional[str] = None) -> bool:
		"""True for @version (any if None) on @arch (any if None)."""
		return (version is None or self.kernels is None or
			any(version == k or (k.endswith('+') and
					     version_key(version) >= version_key(k[:-1]))
			    for k in self.kernels)) and \
			(arch is None or self.arches is None or arch in self.arches)

	def args_for(self, cpus: int) -> Optional[List[str]]:
		"""The kernel arguments for a board of @cpus CPUs, "{big}" made
		its upper half (4-7 of 8, 2-3 of 4) and "{half}" the size of its
		lower one (4 of 8); None where the configuration names a CPU the
		board lacks, or a half it has not, so that it cannot mean what it
		says."""
		out = []
		for arg in self.kernel_args:
			if BIG in arg or HALF in arg:
				if cpus < 2:
					return None
				arg = arg.replace(BIG, cpus_text(list(_halves(cpus)[BIG])))
				arg = arg.replace(HALF, str(cpus // 2))
			key, _, value = arg.partition('=')
			if key in CPU_LISTS and any(c >= cpus for c in _cpus(value)):
				return None
			out.append(arg)
		return out

	def value(self, key: str, version: Optional[str] = None) -> str:
		"""@key's value (one of SINCE_KEYS) on @version: the newest "since"
		that @version has reached, else the plain key's."""
		spec = getattr(self, key)
		for _, since, value in sorted((t for t in self.since if t[0] == key),
					      key=lambda t: version_key(t[1])):
			if version and version_key(version) >= version_key(since):
				spec = value
		return spec

	def unbound_for(self, cpus: int, version: Optional[str] = None) -> List[int]:
		"""The CPUs wq_unbound_cpumask must hold at boot on a board of
		@cpus CPUs of @version."""
		return _terms(self.value('unbound_cpumask', version), cpus)

	def check_mode(self, console: str, version: Optional[str] = None) -> Optional[str]:
		"""Why the power-efficient mode the guest of @console printed
		(MODE_CASE prints it) is not the one this configuration asks for
		on @version, or None."""
		found = MODE_LINE.findall(console)
		if not found:
			return 'no "workqueue.power_efficient=N nohz_full=N" line printed'
		want = self.value('power_efficient', version)
		got = 'on' if found[-1][0] == '1' else 'off'
		if got != want:
			return (f'power-efficient mode at boot is {got}, [{self.name}] in boots.ini '
				f'wants {want}{f" on {version}" if version else ""}')
		return None

	def online_for(self, cpus: int) -> List[int]:
		"""The CPUs a board of @cpus possible CPUs has online at boot."""
		return _terms(self.online, cpus)

	def check_console(self, console: str, cpus: int,
			  version: Optional[str] = None) -> Optional[str]:
		"""Why the wq_unbound_cpumask the guest of @console printed at boot
		(UNBOUND_CASE prints it) is not the one this configuration asks
		for, or None.  The expectation comes from here, not from the
		kernel's housekeeping masks, whose regressions it must catch."""
		found = UNBOUND_LINE.findall(console)
		if not found:
			return f'no "{UNBOUND_SAID}" line printed'
		got, want = _cpus(found[-1]), self.unbound_for(cpus, version)
		if got != want:
			return (f'wq_unbound_cpumask at boot is {found[-1]}, [{self.name}] in '
				f'boots.ini wants {cpus_text(want)} on {cpus} CPUs'
				f'{f" of {version}" if version else ""}')
		return None

	def filtered(self, kunit_args: Sequence[str]) -> bool:
		"""Whether this boot runs only some suites: a filter_glob on the
		kernel's command line, or a glob (a word that is no option's
		value) or a filter option for kunit.py exec in @kunit_args."""
		globs = [a for i, a in enumerate(kunit_args) if not a.startswith('-') and
			 (i == 0 or not kunit_args[i - 1].startswith('--') or '=' in kunit_args[i - 1])]
		return any(a.startswith('kunit.filter') for a in self.kernel_args) or bool(globs) or \
			any('kunit.filter' in a or a.startswith('--filter') for a in kunit_args)


# Parameters whose value is a CPU list, checked against the board's CPUs.
CPU_LISTS = ('isolcpus', 'nohz_full', 'workqueue.unbound_cpus')


def version_key(version: str) -> Tuple[int, ...]:
	"""@version ("6.12") as numbers, so that 6.12 comes after 6.1."""
	return tuple(int(p) for p in version.split('.') if p.isdigit())


def _terms(spec: str, cpus: int) -> List[int]:
	"""The CPUs of @spec on a board of @cpus CPUs: terms "{all}",
	"{big}", "{little}" or a CPU list, each after "minus" taken out."""
	want: set = set()
	take = False
	for term in spec.split():
		if term == 'minus':
			take = True
			continue
		cpus_of = set(_halves(cpus).get(term, _cpus(term)))
		want = want - cpus_of if take else want | cpus_of
		take = False
	return sorted(c for c in want if c < cpus)


def _halves(cpus: int) -> Dict[str, range]:
	"""The named parts of a board of @cpus CPUs."""
	return {ALL: range(cpus), LITTLE: range(cpus // 2), BIG: range(cpus // 2, cpus)}


def cpus_text(cpus: List[int]) -> str:
	"""@cpus as the kernel prints a CPU list: "0,3-7"."""
	runs: List[List[int]] = []
	for c in cpus:
		if runs and runs[-1][1] == c - 1:
			runs[-1][1] = c
		else:
			runs.append([c, c])
	return ','.join(str(a) if a == b else f'{a}-{b}' for a, b in runs)


def _cpus(value: str) -> List[int]:
	"""The CPUs of a CPU list such as "1,2" or "domain,4-7"."""
	cpus = []
	for part in value.split(','):
		low, _, high = part.partition('-')
		if low.isdigit() and (not high or high.isdigit()):
			cpus += range(int(low), int(high or low) + 1)
	return cpus


def read_ini(path: str, what: str) -> configparser.ConfigParser:
	"""@path parsed as INI, or an error naming @what it should hold."""
	parser = configparser.ConfigParser(interpolation=None)
	try:
		with open(path, encoding='utf-8') as f:
			parser.read_file(f)
	except (OSError, configparser.Error) as e:
		raise WqKunitError(f'cannot read {what} from {path}: {e}') from None
	return parser


def load(path: str = repo_paths.BOOTS) -> List[Boot]:
	parser = read_ini(path, 'boot configurations')
	boots = []
	for name in parser.sections():
		sec = parser[name]
		kernels = sec.get('kernels', '').split()
		kconfig = tuple(sec.get('kconfig', '').split())
		for line in kconfig:
			if not line.startswith('CONFIG_') or '=' not in line:
				raise WqKunitError(f'{path}: [{name}] kconfig: {line!r} is not CONFIG_X=Y')
		unbound = sec.get('unbound_cpumask', ALL)
		online = sec.get('online', ALL)
		power_efficient = sec.get('power_efficient', 'off')
		since = []
		for key, value in sec.items():
			first, _, rest = key.partition(' ')
			if first in SINCE_KEYS and rest:
				found = re.fullmatch(r'since (\d+\.\d+)', rest)
				if not found:
					raise WqKunitError(f'{path}: [{name}] {key!r}: write it as '
							   f'"{first} since X.Y"')
				since.append((first, found.group(1), value))
		for key, value in (('power_efficient', power_efficient),
				   *((f'{k} since {v}', t) for k, v, t in since if k == 'power_efficient')):
			if value not in ('on', 'off'):
				raise WqKunitError(f'{path}: [{name}] {key}: {value!r} is not on or off')
		for k in kernels:
			if not re.fullmatch(r'\d+\.\d+\+?', k):
				raise WqKunitError(f'{path}: [{name}] kernels: {k!r} is not X.Y or X.Y+')
		for key, value in (('unbound_cpumask', unbound), ('online', online),
				   *((f'{k} since {v}', t) for k, v, t in since if k == 'unbound_cpumask')):
			for term in value.split():
				if term != 'minus' and term not in (ALL, BIG, LITTLE) and \
				   not _cpus(term):
					raise WqKunitError(f'{path}: [{name}] {key}: {term!r} is none '
							   f'of {ALL} {BIG} {LITTLE}, minus or a CPU list')
		numa = sec.get('numa', '0')
		if numa not in ('0', '2'):
			raise WqKunitError(f'{path}: [{name}] numa: {numa!r} is not 0 or 2')
		arches = tuple(sec.get('arches', '').split()) or None
		boots.append(Boot(name=name, description=sec.get('description', ''),
				  kernel_args=sec.get('kernel_args', '').split(),
				  kernels=kernels or None, kconfig=kconfig, unbound_cpumask=unbound,
				  module=sec.get('module', ''), numa=int(numa), arches=arches,
				  online=online, power_efficient=power_efficient,
				  since=tuple(since)))
	return boots


def select(name: str, version: Optional[str], path: str = repo_paths.BOOTS,
	   arch: Optional[str] = 'arm') -> List[Boot]:
	"""The configurations @name stands for ('all': every one) on @version
	(None: on some version) and @arch (None: on some architecture)."""
	boots = load(path)
	if name == 'all':
		return [b for b in boots if b.applies_to(version, arch)]
	for boot in boots:
		if boot.name == name:
			if not boot.applies_to(version):
				raise WqKunitError(f'boot configuration {name!r} does not apply to '
						   f'{version} (only {", ".join(boot.kernels or [])})')
			if not boot.applies_to(version, arch):
				raise WqKunitError(f'boot configuration {name!r} does not apply to '
						   f'--arch {arch} (only {", ".join(boot.arches or [])})')
			return [boot]
	raise WqKunitError(f'unknown boot configuration {name!r}: known are '
			   f'{", ".join(b.name for b in boots)}, all')


def by_build(selected: List[Boot]) -> List[Tuple[Tuple[str, ...], List[Boot]]]:
	"""Group @selected by the Kconfig they need, in order of first use."""
	groups: dict = {}
	for boot in selected:
		groups.setdefault(boot.kconfig, []).append(boot)
	return list(groups.items())
