"""Natural-language renderings of the 22 PACIFIC instructions.

Each text describes one step precisely enough to be executed by hand, including the
edge rules chosen for this platform (negative numbers, zero, non-letters, wrap-around).
"""

from __future__ import annotations

NL_TEXTS: dict[int, str] = {
    1: (
        "Take the absolute value of the integer and write it in base 3. Count how many of "
        "its base-3 digits are 2, multiply that count by 7 and add 3. The result is an "
        "integer."
    ),
    2: (
        "Take the absolute value of the integer and write it in binary. Let k be the number "
        "of binary digits it needs (zero needs 1 digit), and let the width be the smallest "
        "power of two (1, 2, 4, 8, 16 or 32) that is at least k. Pad the binary form with "
        "leading zeros to exactly that width, flip every one of those bits (0 becomes 1 and "
        "1 becomes 0), and read the flipped bits back as an unsigned binary number. The "
        "result is an integer."
    ),
    3: (
        "Find the smallest prime number that is strictly greater than the integer. When "
        "the integer is less than 2 (including zero and negative numbers) the answer is 2. "
        "The result is an integer."
    ),
    4: (
        "Find the smallest perfect square (the square of a whole number, where 0 counts as "
        "a perfect square) that is strictly greater than the integer. When the integer is "
        "negative the answer is 0. The result is an integer."
    ),
    5: (
        "Take the absolute value of the integer and read its decimal digits as the "
        "coefficients of a polynomial in x: the last digit is the constant term, the digit "
        "before it multiplies x, the one before that multiplies x squared, and so on, so "
        "the first digit has the highest power. Evaluate this polynomial at x = 2. The "
        "result is an integer."
    ),
    6: (
        "Take the absolute value of the integer. Replace each of its decimal digits, from "
        "left to right, by two characters: for a digit d from 1 to 9, the d-th letter of "
        "the alphabet in lower case followed by the same letter in upper case (1 gives aA, "
        "2 gives bB, and so on up to 9, which gives iI); the digit 0 gives xX. Join the "
        "pairs into one string, which is the result."
    ),
    7: (
        "Take the absolute value of the integer. For each of its decimal digits, from left "
        "to right, take the English name of the digit (zero, one, two, three, four, five, "
        "six, seven, eight, nine) and keep its first and last letters, in that order. Join "
        "all these letters into one string and write it entirely in upper case; that "
        "string is the result."
    ),
    8: (
        "Compute the integer modulo 118, taking the remainder that lies between 0 and 117 "
        "even for negative integers. Use that remainder as an atomic number, except that "
        "a remainder of 0 stands for atomic number 118. The result is the English name of "
        "the chemical element with that atomic number, written with a capital first letter "
        "and the rest in lower case, using the IUPAC spellings (for example Aluminium, "
        "Sulfur, Caesium, Oganesson)."
    ),
    9: (
        "Compute the integer modulo 10000, taking the remainder that lies between 0 and "
        "9999 even for negative integers, and write that remainder in Roman numerals using "
        "upper-case letters. Use the subtractive forms CM, CD, XC, XL, IX and IV; write "
        "each full thousand as one M, repeating M as often as needed (so 4000 is MMMM). A "
        "remainder of 0 is written as N. The Roman numeral string is the result."
    ),
    10: (
        "Compute the integer modulo 7, taking the remainder that lies between 0 and 6 even "
        "for negative integers. Return the English name of the day of the week at that "
        "index, where 0 is sunday, 1 monday, 2 tuesday, 3 wednesday, 4 thursday, 5 friday "
        "and 6 saturday, written entirely in lower case."
    ),
    11: (
        "Number the characters of the string from 0 at the left. Put each character at an "
        "even position in lower case and each character at an odd position in upper case; "
        "characters that are not letters stay as they are but still occupy a position. "
        "Then reverse the whole string. The reversed string is the result."
    ),
    12: (
        "Rearrange all characters of the string in increasing order of their ASCII codes, "
        "keeping duplicates. In ASCII the space and punctuation such as ! come before the "
        "digits, the digits come before the upper-case letters, and the upper-case letters "
        "come before the lower-case letters. The sorted string is the result."
    ),
    13: (
        "Replace every letter of the string by the letter just before it in the alphabet, "
        "keeping its case; a becomes z and A becomes Z. Characters that are not letters "
        "stay unchanged. The resulting string is the result."
    ),
    14: (
        "Go through the string from left to right counting only the letters. Replace the "
        "second, fourth, sixth, and every further even-numbered letter by the next letter "
        "of the alphabet, keeping its case, with z becoming a and Z becoming A. Letters in "
        "odd-numbered places and all characters that are not letters stay unchanged (and "
        "non-letters are not counted). The resulting string is the result."
    ),
    15: (
        "Split the characters of the string into three groups, ignoring case when "
        "comparing letters with m: first the letters a to l, then the letter m itself "
        "together with every character that is not a letter, then the letters n to z. "
        "Keep the characters of each group in their original order, and join the three "
        "groups in that order. The joined string is the result."
    ),
    16: (
        "Put the five characters abcde in front of the string and the five characters "
        "edcba after it. The resulting string is the result."
    ),
    17: (
        "Write the string three times in a row with nothing between the copies. The "
        "resulting string is the result."
    ),
    18: (
        "Apply a Caesar cipher with key 8: replace every letter by the letter 8 places "
        "later in the alphabet, keeping its case and wrapping around from z to a (so s "
        "becomes a and Z becomes H). Characters that are not letters stay unchanged. The "
        "resulting string is the result."
    ),
    19: (
        "Replace each vowel of the string, that is each a, e, i, o or u in lower or upper "
        "case, by the two lower-case characters gh. The letter y is not a vowel here, and "
        "all other characters stay unchanged. The resulting string is the result."
    ),
    20: (
        "Find the longest prefix of the string in which each character's ASCII code is "
        "greater than or equal to the code of the character before it; the prefix always "
        "contains at least the first character. Move that prefix from the start of the "
        "string to its end. An empty string stays empty, and a string whose codes never "
        "decrease stays unchanged. The resulting string is the result."
    ),
    21: (
        "Add up the positions in the alphabet of all the letters of the string, ignoring "
        "case (a and A count 1, b and B count 2, up to z and Z, which count 26). "
        "Characters that are not letters add nothing, so a string without letters gives "
        "0. The sum is an integer, which is the result."
    ),
    22: (
        "Add up the ASCII codes of all characters of the string, including spaces, digits "
        "and punctuation (for example the space is 32, A is 65 and a is 97). An empty "
        "string gives 0. The sum is an integer, which is the result."
    ),
}
"""Natural-language description per paper id."""
