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

// Package tenancyaso tries the tenancy attacks on Azure Service Operator's own controllers and judges them by what
// reaches Azure: ASO, built unmodified from the module the provider requires, reconciles the provider's objects
// against a fake Azure Resource Manager (test/fakearm) that records the identity behind every ARM request. The
// provider runs under the strict credential policy. Where test/tenancy checks the credential-from annotations the
// provider writes, this package checks the credential ASO actually used, which its lookup order decides (the
// annotation, else the namespace's aso-credential Secret, else ASO's global credential): no ARM request for a
// resource of the tenant's namespace, deletes and their retries included, carries an identity the platform did not
// give to that namespace.
package tenancyaso
