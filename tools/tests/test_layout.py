# SPDX-License-Identifier: GPL-2.0
"""The tools' package shows their architecture: a sub-package per stage,
each importing only those below it (LAYERS), no import circle (an import
inside a function counts as much as one at the top), no module over
MOST_LINES lines, and docs/layout.md naming every package and module of
it, and nothing else."""

import ast
import os
import re
import tempfile
import unittest
from typing import Dict, List, Optional, Set

from wqkunit.base import repo_paths

PACKAGE = 'wqkunit'
ROOT = os.path.join(repo_paths.TOOLS_DIR, PACKAGE)
LAYOUT = os.path.join(repo_paths.DOCS, 'layout.md')
MOST_LINES = 300
# The packages bottom up: each may import those of the lines before its
# own, and the other modules of its own package.  Packages on one line
# are siblings, neither of which imports the other.
LAYERS = (
	('base',),
	('configs',),
	('tree', 'verdicts'),
	('build',),
	('evidence', 'report', 'lava'),
	('gate',),
	('cli',),
)
# Where docs/layout.md maps the package, up to the next heading.
SECTION = "## The tools' package"
PACKAGE_LINE = re.compile(r'^    (\w+)/ {2,}\S')
MODULE_LINE = re.compile(r'^      (\w+\.py) {2,}\S')


def modules(root: str = ROOT) -> Dict[str, str]:
	"""Every module under @root, the package wqkunit: dotted name (a
	package by its own name) -> path."""
	found = {}
	top = os.path.dirname(root)
	for folder, dirs, files in os.walk(root):
		dirs[:] = sorted(d for d in dirs if d != '__pycache__')
		for name in files:
			if name.endswith('.py'):
				path = os.path.join(folder, name)
				dotted = os.path.relpath(path, top)[:-3].replace(os.sep, '.')
				found[dotted.removesuffix('.__init__')] = path
	return found


def imports(name: str, path: str, known: Set[str]) -> Set[str]:
	"""The modules of @known that module @name (at @path) imports, at its
	top, inside a function or under TYPE_CHECKING alike."""
	with open(path, encoding='utf-8') as f:
		tree = ast.parse(f.read(), path)
	here = name.split('.') if path.endswith('__init__.py') else name.split('.')[:-1]
	out = set()
	for node in ast.walk(tree):
		if isinstance(node, ast.Import):
			targets = [a.name for a in node.names]
		elif isinstance(node, ast.ImportFrom):
			base = here[:len(here) - node.level + 1] if node.level else []
			module = '.'.join(base + ([node.module] if node.module else []))
			# "from PACKAGE import MODULE" imports the module.
			targets = [f'{module}.{a.name}' if f'{module}.{a.name}' in known else module
				   for a in node.names]
		else:
			continue
		out |= {t for t in targets if t in known and t != name}
	return out


def graph(root: str = ROOT) -> Dict[str, Set[str]]:
	"""Module -> the package's modules it imports."""
	found = modules(root)
	return {name: imports(name, path, set(found)) for name, path in found.items()}


def circle(edges: Dict[str, Set[str]]) -> Optional[List[str]]:
	"""An import circle of @edges, as the modules along it, first one
	last again; None if there is none."""
	state: Dict[str, int] = {}		# 1: on the path, 2: done
	path: List[str] = []

	def visit(node: str) -> Optional[List[str]]:
		state[node] = 1
		path.append(node)
		for nxt in sorted(edges.get(node, ())):
			if state.get(nxt) == 1:
				return path[path.index(nxt):] + [nxt]
			if nxt not in state:
				found = visit(nxt)
				if found:
					return found
		path.pop()
		state[node] = 2
		return None
	for node in sorted(edges):
		if node not in state:
			found = visit(node)
			if found:
				return found
	return None


def stage(module: str) -> str:
	"""The package of @module (wqkunit.build.runner: build)."""
	parts = module.split('.')
	return parts[1] if len(parts) > 1 else ''


def rank(package: str) -> int:
	return next(i for i, layer in enumerate(LAYERS) if package in layer)


def layout(path: str = LAYOUT) -> List[str]:
	"""What docs/layout.md's map of the package names, in its order:
	"base/", then "base/errors.py", ...  A line of the map that is
	neither a package's nor a module's (a description run on to a
	second line, say) is an error."""
	with open(path, encoding='utf-8') as f:
		text = f.read()
	if SECTION not in text:
		raise AssertionError(f'{path} has no "{SECTION}" section')
	section = text.split(SECTION, 1)[1].split('\n## ', 1)[0]
	names, package = [], None
	for line in section.splitlines():
		found = PACKAGE_LINE.match(line)
		if found:
			package = found.group(1)
			names.append(f'{package}/')
			continue
		found = MODULE_LINE.match(line)
		if found and package:
			names.append(f'{package}/{found.group(1)}')
		elif line.startswith('    '):
			raise AssertionError(f'{path}: neither a package nor a module: {line!r}')
	return names


def on_disk(root: str = ROOT) -> List[str]:
	"""The packages and modules under @root as layout() names them; a
	package's __init__.py is the package's own line."""
	out = []
	for name, path in modules(root).items():
		parts = name.split('.')[1:]
		if path.endswith('__init__.py'):
			out += [f'{parts[0]}/'] if parts else []
		else:
			out.append('/'.join(parts) + '.py')
	return out


class LayoutTest(unittest.TestCase):
	def setUp(self):
		self.edges = graph()

	def test_no_import_circle(self):
		found = circle(self.edges)
		self.assertIsNone(found, f'import circle: {" -> ".join(found or [])}')

	def test_no_module_is_over_the_limit(self):
		for name, path in modules().items():
			with open(path, encoding='utf-8') as f:
				count = len(f.read().splitlines())
			with self.subTest(module=name):
				self.assertLessEqual(count, MOST_LINES, f'{path} has {count} lines')

	def test_every_module_is_in_a_package_of_the_layers(self):
		packages = {d for d in os.listdir(ROOT)
			    if os.path.isfile(os.path.join(ROOT, d, '__init__.py'))}
		self.assertEqual(sorted(packages), sorted(p for layer in LAYERS for p in layer))
		for name in modules():
			with self.subTest(module=name):
				self.assertTrue(name == PACKAGE or stage(name) in packages,
						f'{name} is in no stage\'s package')

	def test_imports_go_down_the_layers(self):
		for name, targets in sorted(self.edges.items()):
			for target in sorted(targets):
				if stage(target) == stage(name):
					continue
				with self.subTest(edge=f'{name} -> {target}'):
					self.assertLess(rank(stage(target)), rank(stage(name)),
							f'{stage(name)} may not import {stage(target)}')

	def test_each_package_says_what_it_owns_in_one_paragraph(self):
		for name, path in modules().items():
			if not path.endswith('__init__.py') or name == PACKAGE:
				continue
			with open(path, encoding='utf-8') as f:
				tree = ast.parse(f.read())
			doc = ast.get_docstring(tree) or ''
			with self.subTest(package=name):
				self.assertTrue(doc, f'{path} has no docstring')
				self.assertNotIn('\n\n', doc.strip(), f'{path}: one paragraph')
				self.assertEqual(len(tree.body), 1, f'{path}: its docstring only')

	def test_the_layout_page_names_every_package_and_module(self):
		listed, there = layout(), on_disk()
		self.assertEqual(sorted(set(there) - set(listed)), [], 'missing from docs/layout.md')
		self.assertEqual(sorted(set(listed) - set(there)), [],
				 'in docs/layout.md, not in tools/wqkunit')
		self.assertEqual(len(listed), len(set(listed)), 'named twice in docs/layout.md')
		# The packages in the order of LAYERS, bottom up.
		self.assertEqual([n[:-1] for n in listed if n.endswith('/')],
				 [p for layer in LAYERS for p in layer])


class CheckerTest(unittest.TestCase):
	"""The checks above see what they must."""

	def test_an_import_inside_a_function_counts(self):
		with tempfile.TemporaryDirectory() as tmp:
			root = os.path.join(tmp, PACKAGE)
			for sub in ('', 'a'):
				os.makedirs(os.path.join(root, sub), exist_ok=True)
				with open(os.path.join(root, sub, '__init__.py'), 'w', encoding='utf-8') as f:
					f.write('"""x."""\n')
			with open(os.path.join(root, 'a', 'one.py'), 'w', encoding='utf-8') as f:
				f.write('from . import two\n')
			with open(os.path.join(root, 'a', 'two.py'), 'w', encoding='utf-8') as f:
				f.write('def f():\n\tfrom .one import g\n')
			edges = graph(root)
		self.assertEqual(edges[f'{PACKAGE}.a.two'], {f'{PACKAGE}.a.one'})
		self.assertEqual(circle(edges), [f'{PACKAGE}.a.one', f'{PACKAGE}.a.two',
						  f'{PACKAGE}.a.one'])

	def test_no_circle_in_a_tree(self):
		self.assertIsNone(circle({'a': {'b', 'c'}, 'b': {'c'}, 'c': set()}))


if __name__ == '__main__':
	unittest.main()
