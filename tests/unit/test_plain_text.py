"""Terminal escape codes never reach stored error text."""

from adhere.core import plain_text


def test_colours_titles_links_and_cursor_moves_are_removed():
    coloured = "\x1b[1;31mError:\x1b[0m Connection reset by server"
    assert plain_text(coloured) == "Error: Connection reset by server"
    titled = (
        "\x1b]0;claude\x07ready\x1b]8;;https://x.dev\x1b\\link\x1b]8;;\x1b\\ \x1b[2K\x1b[1Gdone"
    )
    assert plain_text(titled) == "readylink done"
    assert plain_text("\x9b31mred\x9b0m \x1b(Bascii \x1b=") == "red ascii "


def test_line_structure_survives_and_redrawn_lines_keep_their_last_state():
    assert plain_text("a\r\nb\tc\n") == "a\nb\tc\n"
    assert plain_text("progress 10%\rprogress 100%\nnext") == "progress 100%\nnext"
    assert plain_text("bell\x07 and nul\x00 gone") == "bell and nul gone"
    text = "plain text stays exactly as it is: [brackets] {braces} ü"
    assert plain_text(text) is text
