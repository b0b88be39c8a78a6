/*
Copyright 2026 The Cluster API Provider Azure ASO Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package skus

import (
	"fmt"
	"strings"
)

// sizeSeries is one series of VM sizes as Azure's size pages list it (learn.microsoft.com/azure/virtual-machines/sizes,
// "Feature support": Accelerated Networking), with what the resource SKU API reports for its sizes as the
// AcceleratedNetworkingEnabled capability.
type sizeSeries struct {
	// series is the series' name on Azure's size pages.
	series string
	// accelerated is true when the series' sizes support accelerated networking.
	accelerated bool
	// sizes are the series' VM sizes.
	sizes []string
}

// vmSizeSeries covers the sizes of CAPZ's and the provider's templates (Standard_D2s_v3, Standard_D4s_v3,
// Standard_B2s, Standard_B2s_v2, Standard_DS2_v2, Standard_DS4_v2, Standard_NC4as_T4_v3, Standard_NC6s_v3,
// Standard_NV12s_v3) and the common families: general purpose Av2, Bv1, Bsv2, DSv2, Dv3/Dsv3, Dv4/Dsv4/Ddv4/Ddsv4,
// Dv5/Dsv5/Ddv5/Ddsv5, Dasv5/Dadsv5; memory optimized Ev3/Esv3 and Ev5/Esv5/Edsv5; compute optimized Fsv2; GPU
// NCv3, NCasT4_v3 and NVv3. A size that is in none of them is unknown.
var vmSizeSeries = []sizeSeries{
	// General purpose.
	{series: "Av2", accelerated: false, sizes: []string{
		"Standard_A1_v2", "Standard_A2_v2", "Standard_A4_v2", "Standard_A8_v2", "Standard_A2m_v2", "Standard_A4m_v2", "Standard_A8m_v2",
	}},
	// Bv1 supports accelerated networking only on its three largest sizes.
	{series: "Bv1", accelerated: false, sizes: []string{
		"Standard_B1ls", "Standard_B1s", "Standard_B1ms", "Standard_B2s", "Standard_B2ms", "Standard_B4ms", "Standard_B8ms",
	}},
	{series: "Bv1", accelerated: true, sizes: []string{"Standard_B12ms", "Standard_B16ms", "Standard_B20ms"}},
	{series: "Bsv2", accelerated: true, sizes: []string{
		"Standard_B2ts_v2", "Standard_B2ls_v2", "Standard_B2s_v2", "Standard_B4ls_v2", "Standard_B4s_v2", "Standard_B8ls_v2",
		"Standard_B8s_v2", "Standard_B16ls_v2", "Standard_B16s_v2", "Standard_B32ls_v2", "Standard_B32s_v2",
	}},
	// Standard_DS1_v2 (one vCPU) is left out: it is unknown.
	{series: "DSv2", accelerated: true, sizes: []string{"Standard_DS2_v2", "Standard_DS3_v2", "Standard_DS4_v2", "Standard_DS5_v2"}},
	{series: "Dv3", accelerated: true, sizes: sizes("Standard_D%d_v3", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Dsv3", accelerated: true, sizes: sizes("Standard_D%ds_v3", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Dv4", accelerated: true, sizes: sizes("Standard_D%d_v4", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Dsv4", accelerated: true, sizes: sizes("Standard_D%ds_v4", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Ddv4", accelerated: true, sizes: sizes("Standard_D%dd_v4", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Ddsv4", accelerated: true, sizes: sizes("Standard_D%dds_v4", 2, 4, 8, 16, 32, 48, 64)},
	{series: "Dv5", accelerated: true, sizes: sizes("Standard_D%d_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	{series: "Dsv5", accelerated: true, sizes: sizes("Standard_D%ds_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	{series: "Ddv5", accelerated: true, sizes: sizes("Standard_D%dd_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	{series: "Ddsv5", accelerated: true, sizes: sizes("Standard_D%dds_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	{series: "Dasv5", accelerated: true, sizes: sizes("Standard_D%das_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	{series: "Dadsv5", accelerated: true, sizes: sizes("Standard_D%dads_v5", 2, 4, 8, 16, 32, 48, 64, 96)},
	// Memory optimized.
	{series: "Ev3", accelerated: true, sizes: sizes("Standard_E%d_v3", 2, 4, 8, 16, 20, 32, 48, 64)},
	{series: "Esv3", accelerated: true, sizes: sizes("Standard_E%ds_v3", 2, 4, 8, 16, 20, 32, 48, 64)},
	{series: "Ev5", accelerated: true, sizes: sizes("Standard_E%d_v5", 2, 4, 8, 16, 20, 32, 48, 64, 96)},
	{series: "Esv5", accelerated: true, sizes: sizes("Standard_E%ds_v5", 2, 4, 8, 16, 20, 32, 48, 64, 96)},
	{series: "Edsv5", accelerated: true, sizes: sizes("Standard_E%dds_v5", 2, 4, 8, 16, 20, 32, 48, 64, 96)},
	// Compute optimized.
	{series: "Fsv2", accelerated: true, sizes: sizes("Standard_F%ds_v2", 2, 4, 8, 16, 32, 48, 64, 72)},
	// GPU.
	{series: "NCv3", accelerated: false, sizes: []string{"Standard_NC6s_v3", "Standard_NC12s_v3", "Standard_NC24s_v3", "Standard_NC24rs_v3"}},
	{series: "NCasT4_v3", accelerated: true, sizes: []string{"Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3", "Standard_NC16as_T4_v3", "Standard_NC64as_T4_v3"}},
	{series: "NVv3", accelerated: true, sizes: []string{"Standard_NV12s_v3", "Standard_NV24s_v3", "Standard_NV48s_v3"}},
}

// acceleratedNetworking is vmSizeSeries by size, lower case: Azure's size names are case-insensitive.
var acceleratedNetworking = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range vmSizeSeries {
		for _, size := range s.sizes {
			m[strings.ToLower(size)] = s.accelerated
		}
	}
	return m
}()

// AcceleratedNetworking is what CAPZ sends as a network interface's accelerated networking when the spec leaves it
// unset: whether the VM size supports it, as the resource SKU API's AcceleratedNetworkingEnabled capability says.
// It returns nil for a size the table does not know: the provider then sends nothing and Azure leaves accelerated
// networking off.
func AcceleratedNetworking(vmSize string) *bool {
	on, known := acceleratedNetworking[strings.ToLower(strings.TrimSpace(vmSize))]
	if !known {
		return nil
	}
	return &on
}

// sizes names a series' sizes from a pattern and their vCPU counts.
func sizes(pattern string, vCPUs ...int) []string {
	out := make([]string, 0, len(vCPUs))
	for _, n := range vCPUs {
		out = append(out, fmt.Sprintf(pattern, n))
	}
	return out
}
