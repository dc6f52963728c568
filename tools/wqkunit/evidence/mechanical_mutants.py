# SPDX-License-Identifier: GPL-2.0
"""Mechanical mutants (issue 45): Coccinelle finds every site of an
operator in the functions of the CPU-selection surface
(kunit/surface.ini), and makes each mutant, one site and one variant at a
time, with the operator's own semantic patch.  Nothing is written by
hand: a site is where a rule matched, a mutant is what spatch wrote.
Calls only the base package; the campaign boots what this makes."""

import configparser
from dataclasses import dataclass
import difflib
import os
import subprocess
import tempfile
from typing import Dict, List, Optional, Tuple

from ..base import repo_paths
from ..base.errors import WqKunitError

SURFACE = os.path.join(repo_paths.KUNIT_DIR, 'surface.ini')
MASKS = ('cpu_online_mask', 'cpu_possible_mask', 'cpu_active_mask', 'wq_unbound_cpumask')
CHANGERS = ('cpumask_copy|cpumask_and|cpumask_andnot|cpumask_or|cpumask_set_cpu|'
	    'cpumask_clear_cpu|cpumask_setall|cpumask_clear|set_cpus_allowed_ptr|'
	    'kthread_bind|kthread_bind_mask|list_add|list_add_tail|list_del|list_del_init|'
	    'list_move|list_move_tail|wake_up_process|worker_set_flags|worker_clr_flags')
CPU_FIRST = ('__queue_work', 'queue_work_on', '__queue_delayed_work', 'mod_delayed_work_on',
	     'queue_delayed_work_on', 'work_on_cpu_key', 'work_on_cpu_safe_key')
CPU_ALTS = (('unbound', 'WORK_CPU_UNBOUND'), ('this-cpu', 'raw_smp_processor_id()'),
	    ('first-online', 'cpumask_first(cpu_online_mask)'))
FLAGS = ('WQ_UNBOUND', '__WQ_ORDERED', 'TIMER_PINNED', 'TIMER_DEFERRABLE', 'WORKER_UNBOUND',
	 'POOL_DISASSOCIATED', 'WQ_POWER_EFFICIENT')
# Both branches of an if, for the rules that change its condition.
_IF = '(\nif (\n- E@p\n+ {new}\n ) S1 else S2\n|\nif (\n- E@p\n+ {new}\n ) S1\n)\n'
_COND = 'expression E;\nstatement S1, S2;\nposition p;\n@@\n'


@dataclass(frozen=True)
class Operator:
	"""A rule: its metavariables, then the -/+ lines, with position p on
	what it changes; each variant fills in the rule's placeholders."""
	name: str
	what: str
	rule: str
	variants: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = (('', ()),)


def _swap(pairs: List[Tuple[str, str]]) -> str:
	return '(\n' + '|\n'.join(f'- {a}@p(es)\n+ {b}(es)\n' for a, b in pairs) + ')\n'


OPERATORS = tuple(
	Operator(f'mask-{src}', f'{src} swapped for another mask in scope',
		 'position p;\n@@\n- SRC@p\n+ DST\n',
		 tuple((dst, (('SRC', src), ('DST', dst))) for dst in MASKS if dst != src))
	for src in MASKS) + (
	Operator('cond-negate', 'an if condition negated', _COND + _IF.format(new='!(E)')),
	Operator('cond-drop', 'an if condition dropped: its branch always taken',
		 _COND + _IF.format(new='1')),
	Operator('stmt-delete', 'a call that changes a mask, a flag, a CPU or a list removed',
		 f'identifier f =~ "^({CHANGERS})$";\nexpression list es;\nposition p;\n@@\n'
		 '- f@p(es);\n'),
	Operator('assign-delete', 'an assignment to a CPU, node or flags field removed',
		 'expression X, V;\nidentifier fld = {cpu, flags, node, pod_node};\nposition p;\n'
		 '@@\n(\n- X->fld@p = V;\n|\n- X->fld@p |= V;\n|\n- X->fld@p &= V;\n)\n'),
	Operator('cpu-arg', 'the CPU argument replaced',
		 f'identifier f = {{{", ".join(CPU_FIRST)}}};\nexpression C;\nexpression list es;\n'
		 'position p;\n@@\n f(\n- C@p\n+ ALT\n , es)\n',
		 tuple((name, (('ALT', alt),)) for name, alt in CPU_ALTS)),
	# cpumask_any() and cpumask_any_and() are macros for cpumask_first()
	# and cpumask_first_and(): swapping those would build the same kernel.
	# The swaps that change code are to and from the _distribute ones.
	Operator('distribute', 'cpumask_any*() or cpumask_first*() swapped with a _distribute one',
		 'expression list es;\nposition p;\n@@\n' + _swap([
			 ('cpumask_any_and', 'cpumask_any_and_distribute'),
			 ('cpumask_first_and', 'cpumask_any_and_distribute'),
			 ('cpumask_any', 'cpumask_any_distribute'),
			 ('cpumask_first', 'cpumask_any_distribute'),
			 ('cpumask_any_distribute', 'cpumask_first'),
			 ('cpumask_any_and_distribute', 'cpumask_first_and')])),
	Operator('next-first', 'cpumask_next*() made cpumask_first*()',
		 'expression N, M, A;\nposition p;\n@@\n(\n- cpumask_next_and@p(N, M, A)\n'
		 '+ cpumask_first_and(M, A)\n|\n- cpumask_next@p(N, M)\n+ cpumask_first(M)\n)\n'),
	Operator('timer-add', 'a timer-add variant swapped',
		 'expression T, C;\nposition p;\n@@\n(\n- add_timer_on@p(T, C)\n+ add_timer(T)\n|\n'
		 '- add_timer_global@p(T)\n+ add_timer(T)\n|\n- add_timer@p(T)\n'
		 '+ add_timer_global(T)\n)\n'),
	Operator('flag-drop', 'a flag bit dropped from an or',
		 f'expression E;\nidentifier F = {{{", ".join(FLAGS)}}};\nposition p;\n@@\n'
		 '(\n- E | F@p\n+ E\n|\n- F@p | E\n+ E\n)\n'),
)
BY_NAME = {op.name: op for op in OPERATORS}


@dataclass(frozen=True)
class Group:
	name: str
	file: str
	functions: Tuple[str, ...]
	screen: Tuple[str, ...]


def surface(path: str = SURFACE) -> List[Group]:
	"""The groups of kunit/surface.ini, in its order."""
	ini = configparser.ConfigParser(interpolation=None)
	if not ini.read(path, encoding='utf-8'):
		raise WqKunitError(f'cannot read {path}')
	try:
		return [Group(s, ini[s]['file'], tuple(ini[s]['functions'].split()),
			      tuple(ini[s]['screen'].split())) for s in ini.sections()]
	except KeyError as e:
		raise WqKunitError(f'{path}: a group without {e}') from None


@dataclass(frozen=True)
class Mutant:
	"""One site of one operator's variant: enough to make it again."""
	group: str
	file: str
	function: str
	line: int
	col: int
	operator: str
	variant: str

	@property
	def name(self) -> str:
		op = self.operator + (f'={self.variant}' if self.variant else '')
		return f'{op}@{self.function}:{self.line}:{self.col}'


def _fill(rule: str, values: Tuple[Tuple[str, str], ...]) -> str:
	for key, value in values:
		rule = rule.replace(key, value)
	return rule


def finder(op: Operator) -> str:
	"""@op's rule as a match only, which prints each position."""
	lines = [l for l in _fill(op.rule, op.variants[0][1]).splitlines() if not l.startswith('+')]
	lines = [' ' + l[1:] if l.startswith('-') else l for l in lines]
	return ('@r@\n' + '\n'.join(lines) + '\n\n@script:python@\np << r.p;\n@@\n'
		'print("SITE %s %s %s" % (p[0].current_element, p[0].line, p[0].column))\n')


def transform(op: Operator, values: Tuple[Tuple[str, str], ...], line: int, col: int) -> str:
	"""@op's rule, on the one position (@line, @col) only."""
	constraint = (f'position p : script:python() {{ p[0].line == "{line}" and '
		      f'p[0].column == "{col}" }};')
	return '@@\n' + _fill(op.rule, values).replace('position p;', constraint, 1)


def _spatch(sp: str, path: str, out: Optional[str] = None) -> str:
	with tempfile.NamedTemporaryFile('w', suffix='.cocci', delete=False) as f:
		f.write(sp)
	try:
		cmd = ['spatch', '--very-quiet', '--no-show-diff', '--sp-file', f.name, path]
		done = subprocess.run(cmd + (['-o', out] if out else []), capture_output=True,
				      text=True, check=False)
	except FileNotFoundError:
		raise WqKunitError('spatch is missing: apt-get install coccinelle') from None
	finally:
		os.unlink(f.name)
	if done.returncode:
		raise WqKunitError(f'spatch failed on {path}: {done.stderr.strip()[:200]}')
	return done.stdout


def sites(tree: str, groups: List[Group],
	  operators: Tuple[Operator, ...] = OPERATORS) -> List[Mutant]:
	"""Every mutant of @groups in @tree by @operators, per file, operator
	and site, in the order of the file; functions the tree lacks have none."""
	found: Dict[Tuple[str, str, int, int, str], Mutant] = {}
	for path in dict.fromkeys(g.file for g in groups):
		owner = {fn: g.name for g in groups if g.file == path for fn in g.functions}
		for op in operators:
			for out in _spatch(finder(op), os.path.join(tree, path)).splitlines():
				if not out.startswith('SITE '):
					continue
				_, fn, line, col = out.split()
				if fn not in owner:
					continue
				for variant, _ in op.variants:
					m = Mutant(owner[fn], path, fn, int(line), int(col), op.name, variant)
					found[(path, op.name, m.line, m.col, variant)] = m
	return sorted(found.values(), key=lambda m: (m.file, m.line, m.col, m.operator, m.variant))


def diff(tree: str, m: Mutant) -> Optional[str]:
	"""The patch of @m against @tree, or None if spatch changed nothing."""
	op = BY_NAME[m.operator]
	values = dict(op.variants)[m.variant]
	src = os.path.join(tree, m.file)
	with tempfile.TemporaryDirectory() as tmp:
		out = os.path.join(tmp, 'out.c')
		_spatch(transform(op, values, m.line, m.col), src, out)
		if not os.path.exists(out):
			return None
		with open(src, encoding='utf-8') as f:
			before = f.read().splitlines(keepends=True)
		with open(out, encoding='utf-8') as f:
			after = f.read().splitlines(keepends=True)
	text = ''.join(difflib.unified_diff(before, after, f'a/{m.file}', f'b/{m.file}'))
	return text or None
