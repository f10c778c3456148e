class RomanNumerals {

    private static final int[] VALUES = {1000, 900, 500, 400, 100, 90, 50, 40, 10, 9, 5, 4, 1};
    private static final String[] LETTERS = {"M", "CM", "D", "CD", "C", "XC", "L", "XL", "X", "IX", "V", "IV", "I"};

    static String toRoman(int number) {
        if (number < 1 || number > 3999) {
            throw new IllegalArgumentException("not between 1 and 3999: " + number);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < VALUES.length; i++) {
            while (number >= VALUES[i]) {
                out.append(LETTERS[i]);
                number -= VALUES[i];
            }
        }
        return out.toString();
    }

    static int fromRoman(String numeral) {
        if (numeral == null || numeral.isEmpty()) {
            throw new IllegalArgumentException("not a Roman numeral: \"\"");
        }
        int total = 0;
        int at = 0;
        for (int i = 0; i < VALUES.length && at < numeral.length(); i++) {
            while (numeral.startsWith(LETTERS[i], at)) {
                total += VALUES[i];
                at += LETTERS[i].length();
            }
        }
        if (at != numeral.length() || total > 3999 || !toRoman(total).equals(numeral)) {
            throw new IllegalArgumentException("not a Roman numeral: \"" + numeral + "\"");
        }
        return total;
    }

}
