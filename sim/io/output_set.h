// A folder of outputs that appears whole or not at all: a run writes into a staging
// folder beside the final one (`OUT.tmp-PID`), and Commit() swaps it in with two renames.
// Until then the final folder keeps the previous run's files untouched; after, it holds
// exactly this run's files: files of the previous run that this run did not write (an old
// trace.jsonl, old dumps/) are gone, so no folder mixes two runs. Entries of the final
// folder that are not among `owned_names` (another command's outputs, OUT/seed-N/, a
// user's notes) are carried over into the new folder.
//
// A writer destroyed before Commit() (an error, an interrupted run, running out of memory)
// removes its staging folder. Files inside are written with sim/io/output_file.h.
//
// Tested by tests/sim/io/output_set_test.cc.
#ifndef SIM_IO_OUTPUT_SET_H_
#define SIM_IO_OUTPUT_SET_H_

#include <string>
#include <vector>

namespace sim {

class OutputSet {
 public:
  // Creates the staging folder (and the final folder's parents); throws an InputError
  // ("cannot write output") when that fails. `owned_names` are the entries of the final
  // folder this kind of output set writes, replaced whether or not this run writes them; a
  // name ending in '*' owns every entry that begins with the rest ("seed-*": the seed
  // folders of a run over other seeds are not carried into this one's set).
  OutputSet(std::string final_dir, std::vector<std::string> owned_names);
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  // Where to write the files; the final folder's name until Commit() is the caller's to
  // say in messages.
  const std::string& staging_dir() const { return staging_; }
  const std::string& final_dir() const { return final_; }

  // Swaps the staging folder in as the final folder.
  void Commit();

 private:
  std::string final_;
  std::string staging_;
  std::vector<std::string> owned_;
  bool committed_ = false;
};

}  // namespace sim

#endif  // SIM_IO_OUTPUT_SET_H_
