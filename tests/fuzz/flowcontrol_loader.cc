// Fuzz target: kubectl-style FlowSchema / PriorityLevelConfiguration manifests through
// reading, validation and, when valid, the configuration a 1.36 cluster would make of
// them (sim/flowcontrol/loader.h).
#include "sim/flowcontrol/loader.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return fuzz_support::RunFuzzInput([&] {
    const sim::FlowControlManifests manifests =
        sim::ParseFlowControlYaml(fuzz_support::AsText(data, size), "fuzz-manifests.yaml");
    sim::ThrowIfInvalid(manifests);
    sim::BuildFlowControl(apf::KubernetesVersion{1, 36}, manifests);
  });
}
