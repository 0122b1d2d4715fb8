"""Java renderings of the 22 PACIFIC instructions.

Each entry is one or more ``static`` methods using ``long`` and ``String``, written to
sit side by side inside a single class without imports (``java.util.Arrays`` is named
in full). Instruction 3 adds an ``isPrime`` helper.
"""

from __future__ import annotations

import textwrap

from adhere.suites.pacific._tables import ELEMENTS


def _element_rows() -> str:
    quoted = ", ".join(f'"{name}"' for name in ELEMENTS) + ","
    return textwrap.fill(quoted, width=88, initial_indent=" " * 8, subsequent_indent=" " * 8)


JAVA_SOURCES: dict[int, str] = {
    1: """
static long ternaryTwosScore(long n) {
    long value = Math.abs(n);
    long twos = 0;
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
static long invertPaddedBits(long n) {
    long value = Math.abs(n);
    int bitsNeeded = 0;
    for (long rest = value; rest > 0; rest >>= 1) {
        bitsNeeded++;
    }
    if (bitsNeeded == 0) {
        bitsNeeded = 1;
    }
    int width = 1;
    while (width < bitsNeeded) {
        width *= 2;
    }
    long mask = (1L << width) - 1;
    return ~value & mask;
}
""",
    3: """
static boolean isPrime(long n) {
    if (n < 2) {
        return false;
    }
    for (long divisor = 2; divisor * divisor <= n; divisor++) {
        if (n % divisor == 0) {
            return false;
        }
    }
    return true;
}

static long nextPrime(long n) {
    long candidate = Math.max(n + 1, 2);
    while (!isPrime(candidate)) {
        candidate++;
    }
    return candidate;
}
""",
    4: """
static long nextPerfectSquare(long n) {
    if (n < 0) {
        return 0;
    }
    long low = 0;
    long high = 1;
    while (high * high <= n) {
        high *= 2;
    }
    while (low < high) {
        long middle = (low + high) / 2;
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
static long digitsAtTwo(long n) {
    long result = 0;
    for (char digit : Long.toString(Math.abs(n)).toCharArray()) {
        result = result * 2 + (digit - '0');
    }
    return result;
}
""",
    6: """
static String absDigitLetters(long n) {
    String letters = "xabcdefghi";
    StringBuilder result = new StringBuilder();
    for (char digit : Long.toString(Math.abs(n)).toCharArray()) {
        char letter = letters.charAt(digit - '0');
        result.append(letter).append(Character.toUpperCase(letter));
    }
    return result.toString();
}
""",
    7: """
static String absDigitName(long n) {
    String[] names = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine"};
    StringBuilder result = new StringBuilder();
    for (char digit : Long.toString(Math.abs(n)).toCharArray()) {
        String name = names[digit - '0'];
        result.append(name.charAt(0)).append(name.charAt(name.length() - 1));
    }
    return result.toString().toUpperCase();
}
""",
    8: """
static String elementName(long n) {
    String[] elements = {
@ELEMENTS@
    };
    int number = (int) Math.floorMod(n, 118L);
    if (number == 0) {
        number = 118;
    }
    return elements[number - 1];
}
""",
    9: """
static String toRoman(long n) {
    long value = Math.floorMod(n, 10000L);
    if (value == 0) {
        return "N";
    }
    long[] values = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1};
    String[] symbols = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"};
    StringBuilder result = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
        while (value >= values[i]) {
            result.append(symbols[i]);
            value -= values[i];
        }
    }
    return result.toString();
}
""",
    10: """
static String weekdayName(long n) {
    String[] days = {"sunday", "monday", "tuesday", "wednesday", "thursday", "friday",
        "saturday"};
    return days[(int) Math.floorMod(n, 7L)];
}
""",
    11: """
static String alternateCaseReversed(String s) {
    StringBuilder result = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (i % 2 == 0) {
            result.append(Character.toLowerCase(c));
        } else {
            result.append(Character.toUpperCase(c));
        }
    }
    return result.reverse().toString();
}
""",
    12: """
static String sortCharacters(String s) {
    char[] chars = s.toCharArray();
    java.util.Arrays.sort(chars);
    return new String(chars);
}
""",
    13: """
static String shiftBack(String s) {
    StringBuilder result = new StringBuilder();
    for (char c : s.toCharArray()) {
        if (c == 'a') {
            result.append('z');
        } else if (c == 'A') {
            result.append('Z');
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            result.append((char) (c - 1));
        } else {
            result.append(c);
        }
    }
    return result.toString();
}
""",
    14: """
static String bumpEverySecondLetter(String s) {
    StringBuilder result = new StringBuilder();
    int letterCount = 0;
    for (char c : s.toCharArray()) {
        char out = c;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
            letterCount++;
            if (letterCount % 2 == 0) {
                if (c == 'z') {
                    out = 'a';
                } else if (c == 'Z') {
                    out = 'A';
                } else {
                    out = (char) (c + 1);
                }
            }
        }
        result.append(out);
    }
    return result.toString();
}
""",
    15: """
static String partitionAroundM(String s) {
    StringBuilder before = new StringBuilder();
    StringBuilder middle = new StringBuilder();
    StringBuilder after = new StringBuilder();
    for (char c : s.toCharArray()) {
        char lower = Character.toLowerCase(c);
        if (lower >= 'a' && lower < 'm') {
            before.append(c);
        } else if (lower > 'm' && lower <= 'z') {
            after.append(c);
        } else {
            middle.append(c);
        }
    }
    return before.toString() + middle + after;
}
""",
    16: """
static String wrapWithAbcde(String s) {
    return "abcde" + s + "edcba";
}
""",
    17: """
static String repeatThreeTimes(String s) {
    return s + s + s;
}
""",
    18: """
static String caesarShift8(String s) {
    StringBuilder result = new StringBuilder();
    for (char c : s.toCharArray()) {
        if (c >= 'a' && c <= 'z') {
            result.append((char) ('a' + (c - 'a' + 8) % 26));
        } else if (c >= 'A' && c <= 'Z') {
            result.append((char) ('A' + (c - 'A' + 8) % 26));
        } else {
            result.append(c);
        }
    }
    return result.toString();
}
""",
    19: """
static String replaceVowelsWithGh(String s) {
    StringBuilder result = new StringBuilder();
    for (char c : s.toCharArray()) {
        if ("aeiouAEIOU".indexOf(c) >= 0) {
            result.append("gh");
        } else {
            result.append(c);
        }
    }
    return result.toString();
}
""",
    20: """
static String moveSortedPrefixToEnd(String s) {
    if (s.isEmpty()) {
        return s;
    }
    int length = 1;
    while (length < s.length() && s.charAt(length - 1) <= s.charAt(length)) {
        length++;
    }
    return s.substring(length) + s.substring(0, length);
}
""",
    21: """
static long letterPositionSum(String s) {
    long total = 0;
    for (char c : s.toCharArray()) {
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
static long asciiSum(String s) {
    long total = 0;
    for (char c : s.toCharArray()) {
        total += c;
    }
    return total;
}
""",
}
"""Java source per paper id, before the element table is filled in (see ``java_source``)."""


def java_source(paper_id: int) -> str:
    """Return the Java rendering of one instruction.

    Args:
        paper_id: The instruction's paper number (1 to 22).

    Returns:
        The static method(s), without leading or trailing blank lines.

    Raises:
        KeyError: If ``paper_id`` has no rendering.
    """
    return JAVA_SOURCES[paper_id].replace("@ELEMENTS@", _element_rows()).strip("\n")
