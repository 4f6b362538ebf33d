"""The three-way merge of one file's versions: clean merges, conflicts, identical changes, adds and deletes."""

from activities.app_builder.merge import MergeResult, VersionsMerge, merge_versions, three_way_merge

BASE = "import a\n\nfunction one() {}\n\nfunction two() {}\n\nfunction three() {}\n"


def test_non_overlapping_edits_merge_exactly() -> None:
    ours = BASE.replace("function one() {}", "function one() { return 1 }")
    theirs = BASE.replace("function three() {}", "function three() { return 3 }")

    result = three_way_merge(BASE, ours, theirs)

    expected = "import a\n\nfunction one() { return 1 }\n\nfunction two() {}\n\nfunction three() { return 3 }\n"
    assert result == MergeResult(expected, conflicts=0)


def test_line_endings_are_kept() -> None:
    base = "a\r\nb\r\nc\r\nd"
    ours = "A\r\nb\r\nc\r\nd"
    theirs = "a\r\nb\r\nc\r\nD"

    assert three_way_merge(base, ours, theirs).text == "A\r\nb\r\nc\r\nD"


def test_overlapping_edits_conflict_and_keep_ours() -> None:
    ours = BASE.replace("function two() {}", "function two() { return 'ours' }")
    theirs = BASE.replace("function two() {}", "function two() { return 'theirs' }")

    assert three_way_merge(BASE, ours, theirs) == MergeResult(ours, conflicts=1)


def test_conflict_regions_are_counted() -> None:
    ours = BASE.replace("one() {}", "one() { 'o' }").replace("three() {}", "three() { 'o' }")
    theirs = BASE.replace("one() {}", "one() { 't' }").replace("three() {}", "three() { 't' }")

    assert three_way_merge(BASE, ours, theirs).conflicts == 2


def test_identical_edits_are_not_a_conflict() -> None:
    edited = BASE.replace("function two() {}", "function two() { return 2 }")

    assert three_way_merge(BASE, edited, edited) == MergeResult(edited)


def test_new_file_added_twice_with_the_same_text() -> None:
    assert merge_versions(None, ["x\n", "x\n"]) == VersionsMerge("x\n")


def test_new_file_added_twice_with_different_texts_conflicts() -> None:
    assert merge_versions(None, ["x\n", "y\n"]) == VersionsMerge("x\n", conflicts=1)


def test_delete_against_edit_conflicts_either_way() -> None:
    edited = BASE + "// more\n"

    assert merge_versions(BASE, [None, edited]) == VersionsMerge(None, conflicts=1)
    assert merge_versions(BASE, [edited, None]) == VersionsMerge(edited, conflicts=1)


def test_delete_against_untouched_deletes() -> None:
    assert merge_versions(BASE, [BASE, None]) == VersionsMerge(None)
    assert merge_versions(BASE, [None, None]) == VersionsMerge(None)


def test_three_versions_fold_in_order() -> None:
    first = BASE.replace("one() {}", "one() { 1 }")
    second = BASE.replace("two() {}", "two() { 2 }")
    third = BASE.replace("three() {}", "three() { 3 }")

    result = merge_versions(BASE, [first, second, third])

    assert result == VersionsMerge(
        "import a\n\nfunction one() { 1 }\n\nfunction two() { 2 }\n\nfunction three() { 3 }\n"
    )


def test_a_conflicting_third_version_keeps_the_merge_so_far() -> None:
    first = BASE.replace("one() {}", "one() { 1 }")
    second = BASE.replace("three() {}", "three() { 3 }")
    third = BASE.replace("one() {}", "one() { 'other' }")

    result = merge_versions(BASE, [first, second, third])

    assert result == VersionsMerge(first.replace("three() {}", "three() { 3 }"), conflicts=1)


def test_no_versions_leave_the_base() -> None:
    assert merge_versions(BASE, []) == VersionsMerge(BASE)
