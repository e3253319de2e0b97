package acctest

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// listedValues returns attribute name of every item of the list attribute
// list of addr in the state s, in order.
func listedValues(s *terraform.State, addr, list, name string) ([]string, error) {
	rs, ok := s.RootModule().Resources[addr]
	if !ok {
		return nil, fmt.Errorf("%s not in state", addr)
	}
	n, err := strconv.Atoi(rs.Primary.Attributes[list+".#"])
	if err != nil {
		return nil, fmt.Errorf("%s: %s.#: %w", addr, list, err)
	}
	values := make([]string, 0, n)
	for i := range n {
		values = append(values, rs.Primary.Attributes[fmt.Sprintf("%s.%d.%s", list, i, name)])
	}
	return values, nil
}
