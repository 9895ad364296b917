"""Windows: a Job object per agent, so nothing outlives the host.

The agent is assigned to a new Job object with
``JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE``; its children join the job as they
start. The host holds the only handle: when the host exits, however it exits,
Windows closes the handle and ends every process in the job. Closing it
ourselves (:func:`close`) ends them too.

A child the agent starts in the instant between its creation and
:func:`contain` escapes the job (asyncio cannot start a process suspended).
Untested here (no Windows machine); on other systems both functions do
nothing.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

if sys.platform == "win32":  # pragma: no cover - Windows only
    import ctypes
    from ctypes import wintypes

    _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9
    _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000
    _PROCESS_SET_QUOTA = 0x0100
    _PROCESS_TERMINATE = 0x0001

    class _IoCounters(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_ulonglong)
            for name in (
                "ReadOperationCount",
                "WriteOperationCount",
                "OtherOperationCount",
                "ReadTransferCount",
                "WriteTransferCount",
                "OtherTransferCount",
            )
        ]

    class _BasicLimits(ctypes.Structure):
        _fields_ = [
            ("PerProcessUserTimeLimit", wintypes.LARGE_INTEGER),
            ("PerJobUserTimeLimit", wintypes.LARGE_INTEGER),
            ("LimitFlags", wintypes.DWORD),
            ("MinimumWorkingSetSize", ctypes.c_size_t),
            ("MaximumWorkingSetSize", ctypes.c_size_t),
            ("ActiveProcessLimit", wintypes.DWORD),
            ("Affinity", ctypes.c_size_t),
            ("PriorityClass", wintypes.DWORD),
            ("SchedulingClass", wintypes.DWORD),
        ]

    class _ExtendedLimits(ctypes.Structure):
        _fields_ = [
            ("BasicLimitInformation", _BasicLimits),
            ("IoInfo", _IoCounters),
            ("ProcessMemoryLimit", ctypes.c_size_t),
            ("JobMemoryLimit", ctypes.c_size_t),
            ("PeakProcessMemoryUsed", ctypes.c_size_t),
            ("PeakJobMemoryUsed", ctypes.c_size_t),
        ]

    _kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)

    def contain(pid: int) -> Any:
        """A kill-on-close job holding process ``pid``; None when that failed."""
        job = _kernel32.CreateJobObjectW(None, None)
        if not job:
            return None
        limits = _ExtendedLimits()
        limits.BasicLimitInformation.LimitFlags = _JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
        _kernel32.SetInformationJobObject(
            job,
            _JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
            ctypes.byref(limits),
            ctypes.sizeof(limits),
        )
        process = _kernel32.OpenProcess(_PROCESS_SET_QUOTA | _PROCESS_TERMINATE, False, pid)
        if process:
            _kernel32.AssignProcessToJobObject(job, process)
            _kernel32.CloseHandle(process)
        return job

    def close(job: Any) -> None:
        """End every process of the job and let go of it."""
        if job:
            with contextlib.suppress(OSError):
                _kernel32.TerminateJobObject(job, 1)
                _kernel32.CloseHandle(job)

else:

    def contain(pid: int) -> Any:
        """Not Windows: nothing to do (the supervisor does this job)."""
        return None

    def close(job: Any) -> None:
        """Not Windows: nothing to do."""
