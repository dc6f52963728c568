# SPDX-License-Identifier: GPL-2.0
"""Whether a boot passed, and if not why, from what it left: kunit.py's
JSON counted, the KTAP followed as the guest prints it, kernel reports
(splats) found in the console, the host's checks of what the guest
cannot judge of itself (which kernel and board it is, its boot
configuration, the results kunit/expected/ says must pass), one boot's
verdict, and the outcome of a run's boots.  It may import configs and
base; it runs nothing."""
