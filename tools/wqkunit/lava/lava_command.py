# SPDX-License-Identifier: GPL-2.0
"""The lava command: write a LAVA job (lava_job.py) for a device type, check
it against LAVA's schema, and for QEMU, run it with lava-run and compare
its per-case results with the tools' own run of the same build."""

import argparse
import json
import os
import re
import shutil
import subprocess
import tempfile
from typing import Dict, List

from ..base import debian_packages, debian_python, repo_paths
from ..base.errors import WqKunitError
from ..base.messages import say
from ..build import runner
from ..configs import boot_configs, kernel_versions
from ..verdicts import kunit_results
from . import lava_job

def helper(*args: str) -> subprocess.CompletedProcess:
	"""lava_helper.py under Debian's Python, which has lava-common."""
	return debian_python.run(lava_job.HELPER, list(args), lava_job.PACKAGE)


def validate(files: List[str]) -> None:
	"""Each of @files passes LAVA's own job (or device) schema."""
	proc = helper('validate', *files)
	if proc.returncode:
		lines = (proc.stdout + proc.stderr).strip().splitlines()
		raise WqKunitError(f'LAVA\'s schema refuses {lines[0] if lines else proc.returncode}')


def example_comment(device: str, version: str) -> str:
	return (f'wq-kunit: {version} on a board of LAVA device type {device}; the lab\n'
		'builds the kernel and serves it (docs/lava.md)')


def _write(path: str, data: dict, comment: str) -> str:
	with open(path, 'w', encoding='utf-8') as f:
		f.write(lava_job.yaml(data, comment))
	return path


def _tools_run(version: str, jobs: int, timeout: int) -> tuple:
	"""The tools' run of the default configuration: the build (zImage),
	the device tree it booted (from QEMU's command line on its console),
	the per-case results."""
	req = runner.BuildRequest(version, jobs=jobs)
	out = runner.run(req, runner.ExecRequest(boot_configs.select('default', version), timeout,
						live=False))
	done = out.boots[0]
	with open(os.path.splitext(done.console)[0] + '.json', encoding='utf-8') as f:
		tools = lava_job.fold(kunit_results.statuses(f.read()))
	with open(done.console, encoding='utf-8', errors='replace') as f:
		dtb = re.search(r' -dtb (\S+)', f.read())
	if not dtb:
		raise WqKunitError(f'no -dtb on QEMU\'s command line in {done.console}')
	return os.path.join(req.build_path, 'arch', 'arm', 'boot', 'zImage'), dtb.group(1), tools


def _lava_run(job: str, device: str, out: str) -> Dict[str, str]:
	"""Run @job on @device with lava-run as root; its per-case results."""
	if not shutil.which('lava-run'):
		raise WqKunitError(f'lava-run is missing: apt-get install {lava_job.RUNNER} '
				   '(about 150 packages; the tools do not install it)')
	if os.geteuid() != 0:
		raise WqKunitError('lava-run needs root')
	log = os.path.join(out, 'lava-run.log')
	work = tempfile.mkdtemp(prefix='wq-kunit-lava-')
	try:
		with open(log, 'w', encoding='utf-8') as f:
			proc = subprocess.run(['lava-run', '--job-id', '1', '--output-dir', work,
					       '--device', device, job], stdout=f, stderr=subprocess.STDOUT,
					      check=False)
	finally:
		shutil.rmtree(work, ignore_errors=True)
		shutil.rmtree('/var/lib/lava/dispatcher/tmp/1', ignore_errors=True)
	got = helper('results', log)
	if got.returncode:
		raise WqKunitError(f'no results from lava-run ({log}): {got.stderr.strip()}')
	found = json.loads(got.stdout)
	if not found:
		raise WqKunitError(f'lava-run gave no result (exit {proc.returncode}; {log})')
	return found


def lava_jobs(args: argparse.Namespace) -> int:
	version = kernel_versions.check(args.kernel) if args.kernel else kernel_versions.supported()[-1]
	debian_packages.ensure([lava_job.PACKAGE], say)
	out = args.out or os.path.join(repo_paths.cache_dir(), 'lava')
	os.makedirs(out, exist_ok=True)
	if args.device != 'qemu':
		job = _write(os.path.join(out, f'{args.device}-{version}.yaml'),
			     lava_job.board_job(args.device, version, args.url),
			     example_comment(args.device, version))
		validate([job])
		say(f'written and valid: {job}')
		return 0
	kernel, dtb, tools = _tools_run(version, args.jobs, args.timeout)
	job = _write(os.path.join(out, f'qemu-{version}.yaml'), lava_job.qemu_job(version, kernel, dtb),
		     f'wq-kunit: {version} on QEMU, the tools\' build and board')
	device = _write(os.path.join(out, 'qemu-device.yaml'), lava_job.qemu_device(),
			'wq-kunit: the qemu device lava-run boots the job on')
	validate([job, device])
	say(f'written and valid: {job}, {device}')
	if not args.run:
		return 0
	found = _lava_run(job, device, out)
	differ = lava_job.compare(found, tools)
	for line in differ:
		print(f'  DIFFERS {line}')
	say(f'lava-run: {len(found)} cases, the tools\' run: {len(tools)}; '
	    f'{len(differ) or "none"} differ')
	return 1 if differ else 0
