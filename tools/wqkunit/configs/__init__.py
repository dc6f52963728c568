# SPDX-License-Identifier: GPL-2.0
"""What the suite is built and booted as, read from kunit/ and checked
before anything runs: the supported kernel versions, the architectures
and the board each boots (big.LITTLE or homogeneous, and the check that
the guest is that board), the named boot configurations of
kunit/boots.ini, the names of a boot's logs, and a run's build and exec
requests.  It may import base only."""
