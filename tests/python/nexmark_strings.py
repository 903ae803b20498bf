"""What the Nexmark reference generator's random strings look like, computed from its rule, not from the model's SQL.

StringsGenerator.nextString(maxLength) (nexmark-flink, generator/model/StringsGenerator.java): a length drawn
uniformly from [3, maxLength), then that many characters, each a space with probability 1/13 and otherwise one of
'a'-'z' uniformly; Java's trim() then removes the spaces at both ends. The probability of a given output depends only
on its length m and the number j of spaces inside it, so the outputs fall into classes (m, j) of equally likely
strings, few enough to sum over exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SPACE = 1 / 13
LETTER = (12 / 13) / 26


@dataclass(frozen=True)
class StringClass:
    length: int
    strings: int  # how many distinct strings of this length the class holds
    probability: float  # the probability of each one of them


def next_string_classes(max_length: int) -> list[StringClass]:
    """Every output of nextString(max_length), by class: trimmed length m and inner spaces j."""
    lengths = range(3, max_length)
    classes = [StringClass(0, 1, sum(SPACE ** n for n in lengths) / len(lengths))]  # all spaces: ''
    for m in range(1, max_length):
        # n - m spaces trimmed away, split in n - m + 1 ways between the two ends
        padded = sum((n - m + 1) * SPACE ** (n - m) for n in lengths if n >= m) / len(lengths)
        for j in range(max(m - 1, 1)):  # the first and last characters are letters
            strings = 26 if m == 1 else math.comb(m - 2, j) * 26 ** (m - j)
            classes.append(StringClass(m, strings, padded * SPACE ** j * LETTER ** (m - j)))
    return classes


def joined(first: list[StringClass], second: list[StringClass], separator: str) -> list[StringClass]:
    """The classes of two independent strings written with a separator between them (an e-mail's user@domain: the
    separator occurs in neither, so different pairs make different strings)."""
    return [StringClass(a.length + len(separator) + b.length, a.strings * b.strings, a.probability * b.probability)
            for a in first for b in second]


def expected_repeats(classes: list[StringClass], draws: int) -> float:
    """How many of `draws` independent strings repeat an earlier one: draws - E[distinct values], where each
    possible string appears at least once with probability 1 - (1 - p)^draws. About Poisson distributed when
    repeats are rare (standard deviation about its square root)."""
    distinct = sum(c.strings * -math.expm1(draws * math.log1p(-c.probability)) for c in classes)
    return draws - distinct


def mean_length(classes: list[StringClass]) -> float:
    """The mean length of the strings."""
    return sum(c.length * c.strings * c.probability for c in classes)


def length_deviation(classes: list[StringClass]) -> float:
    """The standard deviation of the strings' length."""
    mean = mean_length(classes)
    return math.sqrt(sum(c.length ** 2 * c.strings * c.probability for c in classes) - mean ** 2)
