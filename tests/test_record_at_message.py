"""What a caller is told when a record's ``at`` is no date: what to write instead."""

from __future__ import annotations

import pytest

from memtrails import MemoryRecord


@pytest.mark.parametrize("written", ["05/04/2024", "5/4/24", "04-05-2024 10:30"])
def test_a_day_whose_order_is_open_says_so_and_how_to_write_it(written: str) -> None:
    # 5 April or 4 May: the record cannot be stored on a guess, and the caller must know why.
    with pytest.raises(ValueError, match="day first or month first") as caught:
        MemoryRecord(id="a", text="x", at=written)
    assert written in str(caught.value) and "2024-04-05" in str(caught.value)


def test_a_day_whose_numbers_show_their_order_is_read() -> None:
    assert MemoryRecord(id="a", text="x", at="25/04/2024").at is not None


def test_other_text_is_told_the_form_to_give() -> None:
    with pytest.raises(ValueError, match="not a date: 'soon'; write it year first"):
        MemoryRecord(id="a", text="x", at="soon")
