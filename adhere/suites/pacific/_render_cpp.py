"""C++ renderings of the 22 PACIFIC instructions.

Each entry is one or more free functions using ``long long`` and ``std::string``. They
need only the headers in ``HEADERS_CPP`` and can share one translation unit;
instruction 3 adds an ``is_prime`` helper.
"""

from __future__ import annotations

import textwrap

from adhere.suites.pacific._tables import ELEMENTS

HEADERS_CPP: tuple[str, ...] = ("<algorithm>", "<cstdlib>", "<string>", "<vector>")
"""The headers every C++ rendering compiles with, ready for ``#include``."""


def _element_rows() -> str:
    quoted = ", ".join(f'"{name}"' for name in ELEMENTS) + ","
    return textwrap.fill(quoted, width=88, initial_indent=" " * 8, subsequent_indent=" " * 8)


CPP_SOURCES: dict[int, str] = {
    1: """
long long ternary_twos_score(long long n) {
    long long value = std::llabs(n);
    long long twos = 0;
    while (value > 0) {
        if (value % 3 == 2) {
            twos++;
        }
        value /= 3;
    }
    return twos * 7 + 3;
}
""",
    2: """
long long invert_padded_bits(long long n) {
    long long value = std::llabs(n);
    int bits_needed = 0;
    for (long long rest = value; rest > 0; rest >>= 1) {
        bits_needed++;
    }
    if (bits_needed == 0) {
        bits_needed = 1;
    }
    int width = 1;
    while (width < bits_needed) {
        width *= 2;
    }
    long long mask = (1LL << width) - 1;
    return ~value & mask;
}
""",
    3: """
bool is_prime(long long n) {
    if (n < 2) {
        return false;
    }
    for (long long divisor = 2; divisor * divisor <= n; divisor++) {
        if (n % divisor == 0) {
            return false;
        }
    }
    return true;
}

long long next_prime(long long n) {
    long long candidate = std::max(n + 1, 2LL);
    while (!is_prime(candidate)) {
        candidate++;
    }
    return candidate;
}
""",
    4: """
long long next_perfect_square(long long n) {
    if (n < 0) {
        return 0;
    }
    long long low = 0;
    long long high = 1;
    while (high * high <= n) {
        high *= 2;
    }
    while (low < high) {
        long long middle = (low + high) / 2;
        if (middle * middle > n) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    return low * low;
}
""",
    5: """
long long digits_at_two(long long n) {
    long long result = 0;
    for (char digit : std::to_string(std::llabs(n))) {
        result = result * 2 + (digit - '0');
    }
    return result;
}
""",
    6: """
std::string abs_digit_letters(long long n) {
    const std::string letters = "xabcdefghi";
    std::string result;
    for (char digit : std::to_string(std::llabs(n))) {
        char letter = letters[digit - '0'];
        result += letter;
        result += static_cast<char>(letter - 'a' + 'A');
    }
    return result;
}
""",
    7: """
std::string abs_digit_name(long long n) {
    const std::vector<std::string> names = {"zero", "one", "two", "three", "four", "five",
        "six", "seven", "eight", "nine"};
    std::string result;
    for (char digit : std::to_string(std::llabs(n))) {
        const std::string& name = names[digit - '0'];
        result += static_cast<char>(name.front() - 'a' + 'A');
        result += static_cast<char>(name.back() - 'a' + 'A');
    }
    return result;
}
""",
    8: """
std::string element_name(long long n) {
    static const std::vector<std::string> elements = {
@ELEMENTS@
    };
    long long number = ((n % 118) + 118) % 118;
    if (number == 0) {
        number = 118;
    }
    return elements[number - 1];
}
""",
    9: """
std::string to_roman(long long n) {
    long long value = ((n % 10000) + 10000) % 10000;
    if (value == 0) {
        return "N";
    }
    const long long values[] = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1};
    const std::string symbols[] = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V",
        "IV", "I"};
    std::string result;
    for (int i = 0; i < 13; i++) {
        while (value >= values[i]) {
            result += symbols[i];
            value -= values[i];
        }
    }
    return result;
}
""",
    10: """
std::string weekday_name(long long n) {
    const std::vector<std::string> days = {"sunday", "monday", "tuesday", "wednesday",
        "thursday", "friday", "saturday"};
    return days[((n % 7) + 7) % 7];
}
""",
    11: """
std::string alternate_case_reversed(const std::string& s) {
    std::string result;
    for (std::size_t i = 0; i < s.size(); i++) {
        char c = s[i];
        if (i % 2 == 0 && c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        } else if (i % 2 == 1 && c >= 'a' && c <= 'z') {
            c = static_cast<char>(c - 'a' + 'A');
        }
        result += c;
    }
    std::reverse(result.begin(), result.end());
    return result;
}
""",
    12: """
std::string sort_characters(std::string s) {
    std::sort(s.begin(), s.end());
    return s;
}
""",
    13: """
std::string shift_back(const std::string& s) {
    std::string result;
    for (char c : s) {
        if (c == 'a') {
            result += 'z';
        } else if (c == 'A') {
            result += 'Z';
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            result += static_cast<char>(c - 1);
        } else {
            result += c;
        }
    }
    return result;
}
""",
    14: """
std::string bump_every_second_letter(const std::string& s) {
    std::string result;
    int letter_count = 0;
    for (char c : s) {
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            letter_count++;
            if (letter_count % 2 == 0) {
                if (c == 'z') {
                    c = 'a';
                } else if (c == 'Z') {
                    c = 'A';
                } else {
                    c = static_cast<char>(c + 1);
                }
            }
        }
        result += c;
    }
    return result;
}
""",
    15: """
std::string partition_around_m(const std::string& s) {
    std::string before;
    std::string middle;
    std::string after;
    for (char c : s) {
        char lower = c;
        if (c >= 'A' && c <= 'Z') {
            lower = static_cast<char>(c - 'A' + 'a');
        }
        if (lower >= 'a' && lower < 'm') {
            before += c;
        } else if (lower > 'm' && lower <= 'z') {
            after += c;
        } else {
            middle += c;
        }
    }
    return before + middle + after;
}
""",
    16: """
std::string wrap_with_abcde(const std::string& s) {
    return "abcde" + s + "edcba";
}
""",
    17: """
std::string repeat_three_times(const std::string& s) {
    return s + s + s;
}
""",
    18: """
std::string caesar_shift_8(const std::string& s) {
    std::string result;
    for (char c : s) {
        if (c >= 'a' && c <= 'z') {
            result += static_cast<char>('a' + (c - 'a' + 8) % 26);
        } else if (c >= 'A' && c <= 'Z') {
            result += static_cast<char>('A' + (c - 'A' + 8) % 26);
        } else {
            result += c;
        }
    }
    return result;
}
""",
    19: """
std::string replace_vowels_with_gh(const std::string& s) {
    const std::string vowels = "aeiouAEIOU";
    std::string result;
    for (char c : s) {
        if (vowels.find(c) != std::string::npos) {
            result += "gh";
        } else {
            result += c;
        }
    }
    return result;
}
""",
    20: """
std::string move_sorted_prefix_to_end(const std::string& s) {
    if (s.empty()) {
        return s;
    }
    std::size_t length = 1;
    while (length < s.size() && s[length - 1] <= s[length]) {
        length++;
    }
    return s.substr(length) + s.substr(0, length);
}
""",
    21: """
long long letter_position_sum(const std::string& s) {
    long long total = 0;
    for (char c : s) {
        if (c >= 'a' && c <= 'z') {
            total += c - 'a' + 1;
        } else if (c >= 'A' && c <= 'Z') {
            total += c - 'A' + 1;
        }
    }
    return total;
}
""",
    22: """
long long ascii_sum(const std::string& s) {
    long long total = 0;
    for (char c : s) {
        total += c;
    }
    return total;
}
""",
}
"""C++ source per paper id, before the element table is filled in (see ``cpp_source``)."""


def cpp_source(paper_id: int) -> str:
    """Return the C++ rendering of one instruction.

    Args:
        paper_id: The instruction's paper number (1 to 22).

    Returns:
        The function(s), without leading or trailing blank lines.

    Raises:
        KeyError: If ``paper_id`` has no rendering.
    """
    return CPP_SOURCES[paper_id].replace("@ELEMENTS@", _element_rows()).strip("\n")
