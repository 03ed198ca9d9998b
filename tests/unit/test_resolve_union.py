"""The recall-log union of `resolve` (docs/reference.md §10) and its conflict-marker fallback, as
pure functions. Expected outputs were checked against `memshelf resolve` 0.4.0 on real merges."""

from __future__ import annotations

from memshelf_render.resolve import (
    RECALL_HEADER,
    recall_rows,
    row_identity,
    split_conflict_markers,
    union_recall_log,
)

H = RECALL_HEADER + "\n"


def log(*rows: str) -> str:
    return H + "".join(r + "\n" for r in rows)


def test_appends_on_both_sides_all_survive_ours_first():
    base = log("a\tDigest\t10", "b\tDigest\t20")
    ours = log("a\tDigest\t10", "b\tDigest\t20", "c\tDigest\t30")
    theirs = log("a\tDigest\t10", "b\tDigest\t20", "d\t\t40")
    assert union_recall_log(base, ours, theirs) == log("a\tDigest\t10", "b\tDigest\t20", "c\tDigest\t30",
                                                       "d\t\t40")


def test_the_same_row_appended_on_both_sides_is_kept_twice():
    base = log("a\tDigest\t10")
    same = log("a\tDigest\t10", "x\tDecisions\t99")
    assert union_recall_log(base, same, same) == log("a\tDigest\t10", "x\tDecisions\t99", "x\tDecisions\t99")


def test_count_is_max_of_sum_minus_base_ours_theirs():
    # a: base 1, ours 2, theirs 0 -> max(1, 2, 0) = 2 (a side dropping a row never deletes it)
    # d: base 0, ours 0, theirs 2 (two spellings of one row) -> 2, spelled with the most tabs
    base = log("a\tDigest\t10", "b\tDigest\t20")
    ours = log("a\tDigest\t10", "b\tDigest\t20", "c\tDigest\t30", "a\tDigest\t10")
    theirs = log("b\tDigest\t20", "d\t\t40", "d\t\t40\t\t")
    assert union_recall_log(base, ours, theirs) == log(
        "a\tDigest\t10", "b\tDigest\t20", "c\tDigest\t30", "a\tDigest\t10", "d\t\t40\t\t", "d\t\t40\t\t")


def test_without_a_base_the_count_is_max_of_the_sides():
    ours = log("a\t\t1", "a\t\t1")
    theirs = "a\t\t1\t\nb\tX\t2\n"  # no header on this side
    assert union_recall_log(None, ours, theirs) == log("a\t\t1\t", "a\t\t1\t", "b\tX\t2")


def test_an_empty_base_is_a_base():
    assert union_recall_log("", log("a\t\t1"), log("a\t\t1")) == log("a\t\t1", "a\t\t1")
    assert union_recall_log(None, log("a\t\t1"), log("a\t\t1")) == log("a\t\t1")


def test_missing_sides_count_as_empty():
    assert union_recall_log(log("a\t\t1"), None, log("a\t\t1", "b\t\t2")) == log("a\t\t1", "b\t\t2")
    assert union_recall_log(None, None, None) == H


def test_identity_ignores_trailing_empty_cells_only():
    assert row_identity("a\tb\t\t") == row_identity("a\tb") == ("a", "b")
    assert row_identity("a\t\tb") == ("a", "", "b")
    assert row_identity("a\tb ") != row_identity("a\tb")
    # the spelling from the base never wins: only ours' and theirs' rows are emitted
    base = log("a\tDigest\t10\t\t\t")
    assert union_recall_log(base, log("a\tDigest\t10"), log("a\tDigest\t10\t")) == log("a\tDigest\t10\t")


def test_header_and_blank_lines_are_not_rows_and_the_header_is_canonical():
    ours = "a\tDigest\t10\n \t \n" + RECALL_HEADER + "\nx\t1\r\n"
    theirs = RECALL_HEADER + "\r\nx\t1\ny\t2 \n\ny\t2\n"
    assert union_recall_log(None, ours, theirs) == log("a\tDigest\t10", "x\t1", "y\t2 ", "y\t2")
    # only the exact header line is dropped; look-alikes are data
    assert recall_rows(" " + RECALL_HEADER + "\nEPISODE_ID\tsection\tfetched_tokens\n") == [
        " " + RECALL_HEADER, "EPISODE_ID\tsection\tfetched_tokens"]


def test_rows_end_at_lf_crlf_or_cr_only():
    """Deliberate difference: the reference splits on every Unicode line break (form feed, U+2028,
    …), which cuts one recall into two invented rows; here such characters stay in their row."""
    assert union_recall_log(None, log("q\x0cr\t1"), log("z\u2028w\t2", "v\t3\rv\t3")) == log(
        "q\x0cr\t1", "z\u2028w\t2", "v\t3", "v\t3")


def test_a_bom_is_not_part_of_the_header():
    assert union_recall_log(None, "\ufeff" + log("a\t\t1"), "") == log("a\t\t1")


def test_invalid_utf8_survives_byte_for_byte():
    raw = b"\xff\xfe\tDigest\t5"
    text = raw.decode("utf-8", errors="surrogateescape")
    merged = union_recall_log(None, log(text), "")
    assert merged.encode("utf-8", errors="surrogateescape") == H.encode() + raw + b"\n"


def test_markers_split_into_ours_and_theirs_dropping_the_diff3_base():
    text = (H + "a\tD\t1\n<<<<<<< HEAD\nb\tD\t2\nc\tD\t3\n||||||| base\nb\tD\t2\nold\t\t9\n=======\n"
            "b\tD\t2\t\nd\tD\t4\n>>>>>>> theirs\ne\tE\t5\n<<<<<<< HEAD\nf\t\t6\n=======\n>>>>>>> x\n")
    ours, theirs = split_conflict_markers(text)
    assert recall_rows(ours) == ["a\tD\t1", "b\tD\t2", "c\tD\t3", "e\tE\t5", "f\t\t6"]
    assert recall_rows(theirs) == ["a\tD\t1", "b\tD\t2\t", "d\tD\t4", "e\tE\t5"]
    assert union_recall_log(None, ours, theirs) == log("a\tD\t1", "b\tD\t2\t", "c\tD\t3", "e\tE\t5", "f\t\t6",
                                                       "d\tD\t4")


def test_no_marker_lines_means_no_split():
    assert split_conflict_markers(log("a\t\t1", "=======", "x <<<<<<< y")) is None
    assert split_conflict_markers("") is None


def test_an_unclosed_block_keeps_its_side():
    ours, theirs = split_conflict_markers("a\t\t1\n<<<<<<< HEAD\nb\t\t2\n")
    assert (recall_rows(ours), recall_rows(theirs)) == (["a\t\t1", "b\t\t2"], ["a\t\t1"])
