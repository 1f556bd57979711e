// Small text helpers every reader and report shares: the rounding of figures written to
// JSON, the printing of figures for people, and the splitting of lists given on the
// command line or in a --set path. One definition each, so that two outputs never round,
// print or split a value differently. Tested by tests/sim/io/text_test.cc.
#ifndef SIM_IO_TEXT_H_
#define SIM_IO_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

namespace sim {

// `x` rounded to 6 decimals (half away from zero, as std::round): the precision of every
// figure in the JSON outputs, so that the last bits of a floating-point sum do not show.
double Round6(double x);

// A count as an incident write-up prints it, the thousands grouped: 1126 gives "1,126",
// -1400 "-1,400". Not std::locale's grouping, so that every output is the same on every
// machine.
std::string GroupThousands(long long n);

// A figure as a sentence prints it: a count with its thousands grouped ("1,126"; with one
// decimal below 100 when not whole, as a mean over seeds is), seconds with " s", to one
// decimal from 1 s and to the millisecond below ("10.9 s", "0.004 s").
std::string FigureText(double value, bool seconds);

// Whether Split keeps the empty parts between two separators (or at either end).
enum class EmptyParts { kKeep, kSkip };

// The parts of `text` between the separators `sep`. With kKeep, "a..b" gives {"a", "",
// "b"} and "" gives {""}, so that a caller can name an empty part as an error; with
// kSkip, empty parts are left out and "" gives {}.
std::vector<std::string> Split(std::string_view text, char sep,
                               EmptyParts empties = EmptyParts::kKeep);

}  // namespace sim

#endif  // SIM_IO_TEXT_H_
