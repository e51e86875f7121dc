import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/blockfilters.js';

testSuite(suite);
