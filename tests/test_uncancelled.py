"""to_the_end: a clean-up awaited to its end, the caller's cancellation raised after it."""

from __future__ import annotations

import asyncio

import pytest

from memtrails._uncancelled import to_the_end


async def test_a_cancelled_caller_waits_for_the_work_then_is_cancelled() -> None:
    steps: list[str] = []

    async def close() -> None:
        steps.append("started")
        await asyncio.sleep(0.05)
        steps.append("finished")

    task = asyncio.create_task(to_the_end(close()))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert steps == ["started", "finished"]


async def test_the_works_result_and_its_error_come_back() -> None:
    async def value() -> int:
        await asyncio.sleep(0)
        return 7

    async def broken() -> None:
        await asyncio.sleep(0)
        raise OSError("disk gone")

    assert await to_the_end(value()) == 7
    with pytest.raises(OSError, match="disk gone"):
        await to_the_end(broken())


async def test_work_cancelled_from_inside_is_cancelled() -> None:
    async def gives_up() -> None:
        raise asyncio.CancelledError

    with pytest.raises(asyncio.CancelledError):
        await to_the_end(gives_up())
