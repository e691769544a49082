"""Open an ONNX model and its tokenizer, their files checked against pinned SHA-256 digests."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import onnxruntime as ort
from tokenizers import Tokenizer

from .._exceptions import EmbeddingError
from .._heap import release_freed_heap
from ._tokens import sha256_file
from ._unigram import compact_unigram

__all__ = [
    "DEVICES",
    "DEVICE_ENV",
    "choose_providers",
    "chosen_device",
    "default_threads",
    "may_spin",
    "open_graph",
    "open_session",
    "output_dims",
    "path_source",
    "pick_output",
    "takes_token_types",
]

_log = logging.getLogger("memtrails.embedding")

DEVICE_ENV = "MEMTRAILS_DEVICE"  # auto | cpu | cuda; a device= argument wins over it
DEVICES = ("auto", "cpu", "cuda")
_CPU, _CUDA = "CPUExecutionProvider", "CUDAExecutionProvider"
_GPU_HINT = (
    "install the GPU build: pip install 'memtrails[gpu]', then pip uninstall -y onnxruntime "
    "onnxruntime-gpu and pip install 'onnxruntime-gpu>=1.17,<2' (the two share one module)"
)


def choose_providers(
    device: str | None, available: Sequence[str], environ: Mapping[str, str] | None = None
) -> tuple[list[str], str | None]:
    """Return the execution providers to try, best first, and why CUDA is not among them.

    ``device`` (else ``$MEMTRAILS_DEVICE``, else ``"auto"``): ``"auto"`` takes CUDA when
    onnxruntime lists it, ``"cpu"`` never does, ``"cuda"`` requires it.

    Raises:
        EmbeddingError: an unknown device, or ``"cuda"`` where onnxruntime lists no CUDA.
    """
    chosen = chosen_device(device, environ)
    if chosen == "cpu":
        return [_CPU], None
    if _CUDA in available:
        return [_CUDA, _CPU], None
    why = f"onnxruntime {ort.__version__} has no {_CUDA} (providers: {', '.join(available)})"
    if chosen == "cuda":
        raise EmbeddingError(f"device cuda asked for, but {why}; {_GPU_HINT}")
    return [_CPU], why


def chosen_device(device: str | None, environ: Mapping[str, str] | None = None) -> str:
    """Return ``device``, else ``$MEMTRAILS_DEVICE``, else ``"auto"``, checked.

    Raises:
        EmbeddingError: it is not one of :data:`DEVICES`.
    """
    env = os.environ if environ is None else environ
    chosen = (device or env.get(DEVICE_ENV) or "auto").strip().lower()
    if chosen not in DEVICES:
        where = "device" if device else f"${DEVICE_ENV}"
        raise EmbeddingError(f"{where} is {chosen!r}; use one of {', '.join(DEVICES)}")
    return chosen


def default_threads(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """Return the cores this process may run on: the model's default thread count.

    The CPU affinity set (``taskset``, a container's cpuset) where the system has one, not
    every core of the host (``os.cpu_count()``); fewer where a cgroup v2 quota
    (``cpu.max``: a container's ``--cpus``) allows less time than that, rounded up. More
    threads than cores only queue behind each other: each run waits for its slowest thread.
    """
    return max(1, math.ceil(_cores(cgroup)))


def may_spin(threads: int, cgroup: Path = Path("/sys/fs/cgroup")) -> bool:
    """Tell whether ``threads`` model threads may busy-wait inside a run: each has a whole
    core of its own. Not past a quota of part of a core (``--cpus 1.5``: the wait would
    spend the time the quota allows) nor with more threads than cores (it would take the
    core another thread waits for)."""
    return threads <= int(_cores(cgroup))


def _cores(cgroup: Path) -> float:
    """The cores this process may run on: its affinity set, or the time a cgroup v2 quota
    allows where that is less (in cores, a fraction kept)."""
    try:
        cores: float = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    try:
        quota, period = (cgroup / "cpu.max").read_text(encoding="ascii").split()[:2]
        if quota != "max":
            cores = min(cores, int(quota) / int(period))
    except (OSError, ValueError, ZeroDivisionError):
        pass  # no cgroup v2 quota here (or unreadable): the affinity set is the bound
    return cores


def path_source(model: Path, tokenizer: Path) -> dict[str, str]:
    """Return where a model by path came from, as its embedder's describe() reports it."""
    return {"path": str(model.resolve()), "tokenizer_path": str(tokenizer.resolve())}


def _create(
    model_path: Path, options: ort.SessionOptions, device: str | None
) -> ort.InferenceSession:
    providers, why = choose_providers(device, ort.get_available_providers())
    forced = chosen_device(device) == "cuda"
    if providers[0] == _CUDA:
        try:
            session = ort.InferenceSession(
                str(model_path), sess_options=options, providers=providers
            )
        except Exception as exc:  # onnxruntime raises bare runtime errors
            if forced:
                raise EmbeddingError(f"cannot open {model_path} on CUDA: {exc}") from exc
            why = f"the session failed to open on CUDA ({exc})"
        else:
            if _CUDA in session.get_providers():
                return session
            # onnxruntime drops a provider that does not load (no CUDA or cuDNN libraries)
            # with a warning only: say it plainly, once.
            why = f"{_CUDA} did not load (are the CUDA 12 and cuDNN 9 libraries installed?)"
            if forced:
                raise EmbeddingError(f"device cuda asked for, but {why}")
            _log.warning("memtrails: the model runs on the CPU: %s", why)
            return session
        _log.warning("memtrails: the model runs on the CPU: %s", why)
    elif why is not None:
        # The common case (no GPU build installed): said at info level, not on every run.
        _log.info("memtrails: the model runs on the CPU: %s", why)
    return ort.InferenceSession(str(model_path), sess_options=options, providers=[_CPU])


def _options(threads: int | None) -> ort.SessionOptions:
    """The session settings every model of memtrails runs with."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or default_threads()
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.log_severity_level = 3  # errors only: ORT's warnings are not actionable
    # The pool's threads busy-wait between the parallel parts of a run, and stop the moment
    # the run returns: a query's run of 48 pieces took p50 9.2 ms instead of 12.5 (the
    # threads no longer sleep and wake between its few hundred small products), the same
    # CPU; imports ran as fast. Left spinning after a run, they took the cores that the
    # search's index calls and parsing need (benchmarks/README.md, issue 32, tenth pass).
    # Only where each thread has a whole core (see may_spin).
    spin = may_spin(options.intra_op_num_threads)
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    options.add_session_config_entry("session.force_spinning_stop", "1")
    return options


def open_session(
    model_path: Path,
    tokenizer_path: Path,
    sha256: str | None,
    tokenizer_sha256: str | None,
    threads: int | None,
    device: str | None = None,
    *,
    compact_tokenizer: bool = False,
) -> tuple[ort.InferenceSession, Tokenizer, str, str, int]:
    """Check and load a model and tokenizer (blocking), on CUDA when there (see
    :func:`choose_providers`; a fall back to the CPU is logged once, with why).

    With ``compact_tokenizer`` a Unigram ``tokenizer.json`` is loaded by
    :func:`compact_unigram` (the same ids and offsets in ~40 MiB rather than ~280 MiB for
    multilingual-e5-small), else, or where that loader refuses the file, by tokenizers.

    Returns:
        The session, the tokenizer, both files' SHA-256 and the session's thread count.

    Raises:
        EmbeddingError: a file is missing, is not the pinned one, or does not load.
    """
    for p in (model_path, tokenizer_path):
        if not p.is_file():
            raise EmbeddingError(f"model file not found: {p}")
    actual = sha256_file(model_path)
    if sha256 is not None and actual != sha256.lower():
        raise EmbeddingError(
            f"model file {model_path} has SHA-256 {actual}, expected {sha256}; "
            "reinstall the model package or fetch the file again"
        )
    tok_actual = sha256_file(tokenizer_path)
    if tokenizer_sha256 is not None and tok_actual != tokenizer_sha256.lower():
        raise EmbeddingError(
            f"tokenizer {tokenizer_path} has SHA-256 {tok_actual}, expected {tokenizer_sha256}"
        )
    options = _options(threads)
    try:
        session = _create(model_path, options, device)
        tokenizer = _tokenizer(tokenizer_path, compact_tokenizer)
    except EmbeddingError:
        raise
    except Exception as exc:  # onnxruntime/tokenizers raise bare runtime errors
        raise EmbeddingError(f"cannot load model {model_path}: {exc}") from exc
    # Building the session and reading the tokenizer free ~40 MiB of heap that glibc
    # would otherwise keep (measured with multilingual-e5-small).
    release_freed_heap()
    return session, tokenizer, actual, tok_actual, options.intra_op_num_threads


def open_graph(path: Path, sha256: str, threads: int | None) -> ort.InferenceSession:
    """Check and open another graph of a loaded model on the CPU, with the same settings
    (blocking): the int8 copy that reads long queries (``_int8_queries``).

    Raises:
        EmbeddingError: the file is missing, is not the pinned one, or does not load.
    """
    if not path.is_file():
        raise EmbeddingError(f"model file not found: {path}")
    if (actual := sha256_file(path)) != sha256:
        raise EmbeddingError(f"model file {path} has SHA-256 {actual}, expected {sha256}")
    try:
        return ort.InferenceSession(str(path), sess_options=_options(threads), providers=[_CPU])
    except Exception as exc:  # onnxruntime raises bare runtime errors
        raise EmbeddingError(f"cannot load model {path}: {exc}") from exc


def _tokenizer(path: Path, compact: bool) -> Tokenizer:
    if compact:
        try:
            return compact_unigram(path)
        except ValueError as exc:
            _log.info("memtrails: %s is read by tokenizers itself: %s", path, exc)
    return Tokenizer.from_file(str(path))


def pick_output(session: ort.InferenceSession, model_id: str) -> tuple[str, bool]:
    """Return (output name, already pooled) for a session."""
    outputs = session.get_outputs()
    for o in outputs:
        if o.name == "last_hidden_state":
            return o.name, False
    for o in outputs:
        if len(o.shape) == 3:
            return o.name, False
    for o in outputs:
        if len(o.shape) == 2:
            return o.name, True
    raise EmbeddingError(
        f"model {model_id} has no 2-D or 3-D output: {[(o.name, o.shape) for o in outputs]}"
    )


def output_dims(session: ort.InferenceSession, output: str, probe: Callable[[], Any]) -> int:
    """Return the vector length from the output's shape, or from ``probe()``'s vector."""
    for o in session.get_outputs():
        if o.name == output and isinstance(o.shape[-1], int):
            return int(o.shape[-1])
    return int(probe().shape[0])


def takes_token_types(session: ort.InferenceSession, model_id: str) -> bool:
    """Return whether a text encoder's session takes ``token_type_ids`` too.

    Raises:
        EmbeddingError: the session lacks ``input_ids`` or ``attention_mask``.
    """
    inputs = {i.name for i in session.get_inputs()}
    if not {"input_ids", "attention_mask"} <= inputs:
        raise EmbeddingError(
            f"model {model_id} has inputs {sorted(inputs)}; "
            "a text encoder needs input_ids and attention_mask"
        )
    return "token_type_ids" in inputs
