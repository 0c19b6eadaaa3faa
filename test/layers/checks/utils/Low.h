// Layer 1 of the fixture.
#pragma once
