"""Secrets in a column named like one: CSV and TSV rows under their header, SQL's INSERT and COPY.

A header row that names a column ``password``, ``api_key``, ``Client Secret`` (among two or
more columns, split by ``,``, ``;``, a tab or ``|``; not ending in its delimiter, as a list in
code does) makes the values of that column in the rows after it secrets, as an assignment's
value under that name would be (:func:`keys.accept_keyed`: an unquoted cell that reads as a
name, ``row_major``, is none). The rows run while they have as many fields as the header,
up to a blank line or a row that names a secret column again. SQL names its columns once too:
``INSERT INTO users (name, password) VALUES ('ann', 'V'), ...`` (the value may be a call's
first string: ``crypt('V', gen_salt('bf'))``), and pg_dump's ``COPY users (id, password) FROM
stdin;`` then tab-separated rows up to ``\\.``; an UPDATE's ``SET password = crypt('V', ...)``
and MySQL's ``SET PASSWORD FOR ... = PASSWORD('V')`` (a call's first string, which no
assignment rule reads as a value); a dump's ``INSERT INTO users VALUES (...)``, which names no
columns, by the columns of the ``CREATE TABLE users`` before it in the same text.

One scan of its own, in linear time: a candidate is found by one RE2 search; a header's rows
and a statement's values are read once, and the scan resumes after them. Lines longer than
:data:`_LONGEST_LINE` are no header.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Final

import re2

from .keys import accept_keyed, is_named_key
from .passes import OPTIONS

__all__ = ["table_values"]

_Value = tuple[int, int]  # a secret's start and end in the buffer

_LONGEST_LINE: Final = 8192
_LONGEST_STRING: Final = 1 << 16  # an SQL string longer than this ends the statement's values
_LONGEST_VALUE: Final = 4096  # and so does a value with more than this outside its strings
_DELIMITERS: Final = b"\t,;|"
# A column named like a secret: up to three words before the key word, quoted or in brackets.
_COLUMN = (
    rb"(?:[A-Za-z0-9]+[ _.-]){0,3}(?i:passw(?:or)?d|passwd|pwd|pass|passphrase|secret|token"
    rb"|key|credentials?)"
)
_CANDIDATE: Final = re2.compile(
    rb"(?:^|[\n\t,;|])[ \t]*[\"'`\[]?" + _COLUMN + rb"[\"'`\]]?[ \t]*(?:[\t,;|]|\r?\n|\z)"
    rb"|(?P<insert>\b(?i:insert)[ \t\r\n]+(?:(?i:ignore|or[ \t]+(?:replace|ignore))[ \t\r\n]+)?"
    rb"(?i:into)[ \t\r\n]+)"
    rb"|(?P<copy>\b(?i:copy)[ \t]+[A-Za-z0-9_.\"]+[ \t]*\()"
    rb"|(?P<create>\b(?i:create)[ \t]+(?:(?i:temporary|temp)[ \t]+)?(?i:table)[ \t]+"
    rb"(?:(?i:if)[ \t]+(?i:not)[ \t]+(?i:exists)[ \t]+)?)"
    rb"|(?P<update>\b(?i:update)[ \t\r\n]+[^\s;]{1,128}[ \t\r\n]+(?i:set)[ \t\r\n]+)"
    rb"|(?P<setpw>\b(?i:set)[ \t]+(?i:password)\b[^=;\r\n]{0,200}=)",
    OPTIONS,
)
_NAME: Final = re2.compile(rb"[\"'`\[]?[A-Za-z_][A-Za-z0-9_ .$#()/-]{0,63}[\"'`\]]?")
# A table's name: schema.table, each part perhaps quoted ("users", `users`, [users]).
_TABLE: Final = re2.compile(rb"(?:[\"'`\[]?[A-Za-z_][A-Za-z0-9_$-]{0,127}[\"'`\]]?\.?){1,3}")
_SPACE = b" \t\r\n"


_Field = tuple[int, int, bool]  # a field's start and end in its row, and whether it was quoted


def _fields(line: bytes, delimiter: int) -> list[_Field]:
    """Split a row at ``delimiter``: each field's start and end (quotes and spaces left out)
    and whether it was quoted. A quoted field may hold the delimiter ("a,b"; "" escapes)."""
    out: list[_Field] = []
    i, n = 0, len(line)
    while True:
        while i < n and line[i] in b" \t":
            i += 1
        if i < n and line[i] in b"\"'":  # a quoted field
            quote = line[i : i + 1]
            j = i + 1
            while True:
                j = line.find(quote, j)
                if j < 0 or line[j + 1 : j + 2] != quote:
                    break
                j += 2
            if j < 0:
                return []  # an unclosed quote: no row of this table
            out.append((i + 1, j, True))
            i = line.find(bytes([delimiter]), j)
        else:
            j = line.find(bytes([delimiter]), i)
            end = n if j < 0 else j
            out.append((i, len(line[i:end].rstrip(b" \t")) + i, False))
            i = j
        if i < 0:
            return out
        i += 1


@functools.lru_cache(maxsize=4096)
def _column(raw: bytes) -> str | None:
    """Return a column's name as a key (``"Client Secret"`` -> ``"Client_Secret"``): ``""``
    when it is a name but no secret's, None when it is no name (a value, a sentence)."""
    name = raw.strip(b"\"'`[] \t")
    if not name:
        return ""
    if _NAME.fullmatch(raw.strip(b" \t")) is None or name.count(b" ") > 2:
        return None
    text = name.decode("ascii", "replace").replace(" ", "_")
    return text if is_named_key(text) else ""


def _secret_columns(names: list[bytes]) -> dict[int, str]:
    """Return the columns whose names are a secret's, by index, or none if the row is not a
    header (a name of more than three words, or any field that is not a name)."""
    out: dict[int, str] = {}
    for i, raw in enumerate(names):
        column = _column(raw)
        if column is None:
            return {}
        if column:
            out[i] = column
    return out


def _line_end(buf: bytes, start: int) -> int:
    end = buf.find(b"\n", start)
    return len(buf) if end < 0 else end


_Header = tuple[int, int, dict[int, str]]  # delimiter, number of fields, secret columns
_NO_HEADER: Final[_Header] = (0, 0, {})
_MEMO_SIZE: Final = 4096


def _header(line: bytes, memo: dict[bytes, _Header]) -> _Header:
    """Read ``line`` as a header row: its delimiter, its number of fields and its secret
    columns (none: not a header). A line ending in its delimiter is a list in code, not one."""
    known = memo.get(line)
    if known is not None:
        return known
    delimiter = max(_DELIMITERS, key=line.count)
    header = _NO_HEADER
    spans = _fields(line, delimiter)
    closed = delimiter == ord("|") or not line.rstrip(b" \t").endswith(bytes([delimiter]))
    if closed and len([s for s in spans if s[1] > s[0]]) >= 2:
        columns = _secret_columns([line[s:e] for s, e, _ in spans])
        header = (delimiter, len(spans), columns) if columns else _NO_HEADER
    if len(memo) >= _MEMO_SIZE:
        memo.clear()
    memo[line] = header
    return header


def _spanning_row(buf: bytes, pos: int, delimiter: int) -> tuple[bytes, int, list[_Field]]:
    """Read a row at ``pos`` whose first line leaves a double quote open (CSV allows line
    breaks inside quotes): the row up to the line break outside quotes, where it ends, and
    its fields. When none comes within :data:`_LONGEST_LINE` bytes, no row and no fields,
    and where the reading stopped (the scan resumes there: each byte is read once)."""
    limit = min(len(buf), pos + _LONGEST_LINE)
    i, quoted = pos, False
    while i < limit:
        if quoted:  # a doubled quote ("") closes and opens again at once
            j = buf.find(b'"', i, limit)
            if j < 0:
                break
            quoted, i = False, j + 1
            continue
        q = buf.find(b'"', i, limit)
        n = buf.find(b"\n", i, limit)
        if n >= 0 and (q < 0 or n < q):
            row = buf[pos:n].rstrip(b"\r")
            return row, n, _fields(row, delimiter)
        if q < 0:
            break
        quoted, i = True, q + 1
    return b"", limit, []


def _csv(buf: bytes, ms: int, me: int, memo: dict[bytes, _Header]) -> tuple[list[_Value], int]:
    """Read the header row around a candidate column and the rows under it."""
    start = max(ms - _LONGEST_LINE, 0)
    line_start = buf.rfind(b"\n", start, ms + 1) + 1
    line_end = _line_end(buf, max(line_start, me - 1))
    if (not line_start and start) or line_end - line_start > _LONGEST_LINE:
        return [], line_end  # a line too long for a header: skipped whole
    delimiter, count, columns = _header(buf[line_start:line_end].rstrip(b"\r"), memo)
    if not columns:
        return [], line_end
    out: list[_Value] = []
    pos = line_end + 1
    while pos < len(buf):
        end = _line_end(buf, pos)
        row = buf[pos:end].rstrip(b"\r")
        if not row.strip():
            break
        if delimiter == ord("|") and not row.strip(b"|-: \t"):
            pos = end + 1  # a Markdown table's rule
            continue
        if len(row) <= _LONGEST_LINE and (header := _header(row, memo))[2]:
            delimiter, count, columns = header  # a header again: its rows follow
            pos = end + 1
            continue
        fields = _fields(row, delimiter)
        if not fields and b'"' in row:  # a quoted field that spans lines
            row, end, fields = _spanning_row(buf, pos, delimiter)
            if not fields:
                pos = end + 1  # no row: the table ends, and the scan resumes past what was read
                break
        if len(fields) != count:
            break  # the table's end
        for i, name in columns.items():
            s, e, quoted = fields[i]
            if accept_keyed(name, row[s:e].decode("utf-8", "replace"), quoted):
                out.append((pos + s, pos + e))
        pos = end + 1
    return out, max(pos - 1, line_end)


def _string(buf: bytes, i: int) -> int:
    """Return the end of the SQL string literal whose opening quote is at ``i`` (after its
    closing quote), or -1. A quote is escaped by doubling it or by a backslash."""
    quote = buf[i]
    j = i + 1
    limit = min(len(buf), i + _LONGEST_STRING)
    while j < limit:
        c = buf[j]
        if c == 92:  # backslash
            j += 2
        elif c == quote:
            if buf[j + 1 : j + 2] == bytes([quote]):
                j += 2
            else:
                return j + 1
        else:
            j += 1
    return -1


def _skip(buf: bytes, i: int) -> int:
    while i < len(buf) and buf[i] in _SPACE:
        i += 1
    return i


def _sql_value(buf: bytes, i: int) -> tuple[_Value | None, int]:
    """Read one value of a VALUES tuple at ``i``: its string's content (a call's first string)
    or None, and where it ends; when it cannot be read (a ";", the text's end, a string or a
    value too long), ``-1 - p`` for the place ``p`` where reading stopped."""
    found: _Value | None = None
    depth = 0
    limit = min(len(buf), i + _LONGEST_VALUE)
    while i < limit:
        c = buf[i]
        if c in b"'\"":
            end = _string(buf, i)
            if end < 0:
                return None, -1 - min(len(buf), i + _LONGEST_STRING)
            if found is None:
                found = (i + 1, end - 1)
            limit = min(len(buf), end + _LONGEST_VALUE)
            i = end
        elif c == 40:  # (
            depth += 1
            i += 1
        elif c == 41:  # )
            if not depth:
                return found, i
            depth -= 1
            i += 1
        elif c == 44 and not depth:  # ,
            return found, i
        elif c == 59:  # ;
            return None, -1 - i
        else:
            i += 1
    return None, -1 - i


def _columns(buf: bytes, i: int) -> tuple[dict[int, str], int]:
    """Read a parenthesised column list at ``i``: the secret columns and where it ends."""
    if buf[i : i + 1] != b"(":
        return {}, -1
    end = buf.find(b")", i, i + 4096)
    if end < 0:
        return {}, -1
    names = [n.strip(_SPACE) for n in buf[i + 1 : end].split(b",")]
    return _secret_columns(names), end + 1


def _table_name(buf: bytes, name: re2._Match[bytes]) -> bytes:
    """Return a table's name as a key: its last part, unquoted, lower case."""
    return buf[name.start() : name.end()].rsplit(b".", 1)[-1].strip(b"\"'`[] \t").lower()


_SPECIAL: Final = re2.compile(rb"['\"`(),]")  # what a column definition's reading stops at
_CONSTRAINTS: Final = (b"primary", b"unique", b"key", b"constraint", b"foreign", b"index", b"check")


def _create(buf: bytes, me: int, tables: dict[bytes, dict[int, str]]) -> int:
    """Read CREATE TABLE name (column definitions): remember its secret columns, by position,
    for an INSERT that names no columns (a dump's). Return where reading stopped."""
    name = _TABLE.match(buf, me)
    if name is None:
        return me
    i = _skip(buf, name.end())
    if buf[i : i + 1] != b"(":
        return i
    names: list[bytes] = []
    depth, start, j = 0, i + 1, i + 1
    limit = min(len(buf), i + _LONGEST_LINE * 4)
    while j < limit:
        special = _SPECIAL.search(buf, j, limit)
        if special is None:
            return limit
        j = int(special.start())
        c = buf[j]
        if c in b"'\"`" and (end := _string(buf, j)) > 0:
            j = end
            continue
        if c == 40:
            depth += 1
        elif c == 41 and depth:
            depth -= 1
        elif (c == 44 and not depth) or c == 41:  # the end of a definition
            words = buf[start:j].split()
            if words and words[0].strip(b"\"'`[]").lower() not in _CONSTRAINTS:
                names.append(words[0])
            start = j + 1
            if c == 41:
                columns = _secret_columns(names)
                if columns:
                    tables[_table_name(buf, name)] = columns
                return j + 1
        j += 1
    return j


def _insert(buf: bytes, me: int, tables: dict[bytes, dict[int, str]]) -> tuple[list[_Value], int]:
    """Read INSERT INTO name (columns) VALUES (...), (...): the secret columns' values (by the
    columns of its CREATE TABLE earlier in the text when the statement names none)."""
    name = _TABLE.match(buf, me)
    if name is None:
        return [], me
    i = _skip(buf, name.end())
    if buf[i : i + 1] == b"(":
        columns, i = _columns(buf, i)
    else:
        columns = tables.get(_table_name(buf, name), {})
    if not columns:
        return [], me
    i = _skip(buf, i)
    if buf[i : i + 6].lower() != b"values":
        return [], me
    out: list[_Value] = []
    i = _skip(buf, i + 6)
    while buf[i : i + 1] == b"(":
        index, i = 0, i + 1
        while True:
            value, i = _sql_value(buf, _skip(buf, i))
            if i < 0:
                return out, max(me, -1 - i)  # not resumed before: linear
            name_of = columns.get(index)
            if value is not None and name_of is not None:
                text = buf[value[0] : value[1]].decode("utf-8", "replace")
                if accept_keyed(name_of, text, True):
                    out.append(value)
            index += 1
            if buf[i] == 41:  # the tuple's ")"
                break
            i += 1
        i = _skip(buf, i + 1)
        if buf[i : i + 1] != b",":
            break
        i = _skip(buf, i + 1)
    return out, i


def _copy(buf: bytes, ms: int, me: int) -> tuple[list[_Value], int]:
    """Read pg_dump's COPY name (columns) FROM stdin; and its tab-separated rows up to \\."""
    columns, i = _columns(buf, me - 1)
    if not columns:
        return [], me
    line_end = _line_end(buf, i)
    if not buf[i:line_end].strip(_SPACE).lower().startswith(b"from stdin"):
        return [], me
    out: list[_Value] = []
    pos = line_end + 1
    while pos < len(buf):
        end = _line_end(buf, pos)
        row = buf[pos:end].rstrip(b"\r")
        if row == b"\\.":
            break
        cells = row.split(b"\t")
        offset = pos
        for index, cell in enumerate(cells):
            name = columns.get(index)
            if name is not None and accept_keyed(name, cell.decode("utf-8", "replace"), True):
                out.append((offset, offset + len(cell)))
            offset += len(cell) + 1
        pos = end + 1
    return out, pos


def _set_value(buf: bytes, i: int) -> tuple[_Value | None, int]:
    """Read the value of an SQL assignment at ``i``: a string's content, or a call's first
    string (``crypt('V', gen_salt('bf'))``, ``PASSWORD('V')``), and where it ends."""
    i = _skip(buf, i)
    if buf[i : i + 1] in (b"N", b"n", b"E", b"e") and buf[i + 1 : i + 2] == b"'":
        i += 1  # N'...', E'...'
    word = _TABLE.match(buf, i)
    if word is not None and buf[i] not in b"\"'`[":
        i = _skip(buf, word.end())
        if buf[i : i + 1] != b"(":
            return None, i
        found, end = _sql_value(buf, i + 1)  # the call's first argument
        if end < 0:
            return None, -1 - end
        depth, j = 1, end
        while depth > 0 and j < min(len(buf), end + _LONGEST_VALUE):
            if buf[j] in b"'\"":
                j = _string(buf, j)
                if j < 0:
                    return None, end
                continue
            depth += (buf[j] == 40) - (buf[j] == 41)
            j += 1
        return found, j
    if buf[i : i + 1] in (b"'", b'"'):
        end = _string(buf, i)
        return (None, i) if end < 0 else ((i + 1, end - 1), end)
    return None, i


def _update(buf: bytes, me: int, name: str | None) -> tuple[list[_Value], int]:
    """Read UPDATE t SET a = 1, password = crypt('V', ...) (or MySQL's SET PASSWORD ... =
    PASSWORD('V'), ``name`` given): the values of columns named like a secret."""
    out: list[_Value] = []
    i = me
    while True:
        if name is None:
            column = _TABLE.match(buf, _skip(buf, i))
            if column is None:
                return out, i
            i = _skip(buf, column.end())
            if buf[i : i + 1] != b"=":
                return out, i
            i += 1
            key = buf[column.start() : column.end()].strip(b"\"'`[]").decode("ascii", "replace")
        else:
            key, name = name, ""
        value, i = _set_value(buf, i)
        text = "" if value is None else buf[value[0] : value[1]].decode("utf-8", "replace")
        if value is not None and is_named_key(key) and accept_keyed(key, text, True):
            out.append(value)
        i = _skip(buf, i)
        if name == "" or buf[i : i + 1] != b",":
            return out, i
        i += 1


def table_values(buf: bytes) -> Iterator[_Value]:
    """Yield the secrets of UTF-8 ``buf`` that a table's column names: (start, end), in order
    of their tables."""
    pos = 0
    index = _CANDIDATE.groupindex
    insert, copy, update, setpw, create = (
        index[k] for k in (b"insert", b"copy", b"update", b"setpw", b"create")
    )
    memo: dict[bytes, _Header] = {}
    tables: dict[bytes, dict[int, str]] = {}  # CREATE TABLE's secret columns, by table
    while pos < len(buf):
        m = _CANDIDATE.search(buf, pos)
        if m is None:
            return
        ms, me = m.span()
        if m.start(insert) >= 0:
            found, resume = _insert(buf, me, tables)
        elif m.start(create) >= 0:
            found, resume = [], _create(buf, me, tables)
        elif m.start(copy) >= 0:
            found, resume = _copy(buf, ms, me)
        elif m.start(update) >= 0 or m.start(setpw) >= 0:
            found, resume = _update(buf, me, None if m.start(update) >= 0 else "password")
        else:
            found, resume = _csv(buf, ms, me, memo)
        yield from found
        pos = max(resume, ms + 1)
