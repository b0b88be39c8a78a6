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

// Package skus stands in for the facts CAPZ reads from Azure's resource SKU API, which the provider never calls:
// static tables of what a VM size supports (vmsizes.go) and of the most fault domains an availability set may
// have in a region (availabilitysets.go). Each table says where its values come from and what a size or region
// it does not list gets.
//
// The tables are kept by hand. A size or region Azure adds is unknown here until it is added: an unknown VM size
// gets no accelerated networking from the provider (the field is not sent, and Azure leaves it off), and an
// unknown region gets two fault domains, which every region supports. Users override the first by setting
// acceleratedNetworking on the machine's network interfaces.
package skus
