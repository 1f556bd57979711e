// Fuzz target: the JSON requests of `apfsim model classify` (sim/model/classify.h),
// classified against a 1.36 cluster's default objects as the command does.
#include "apf/classification/classifier.h"
#include "sim/flowcontrol/loader.h"
#include "sim/io/json_input.h"
#include "sim/model/classify.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const sim::FlowControlSetup setup =
      sim::BuildFlowControl(apf::KubernetesVersion{1, 36}, sim::FlowControlManifests{});
  static const apf::Classifier classifier(setup.config);
  return fuzz_support::RunFuzzInput([&] {
    const nlohmann::json cases = sim::ParseJsonText(fuzz_support::AsText(data, size), "<stdin>");
    sim::ClassifyCases(classifier, cases, "<stdin>").dump();
  });
}
