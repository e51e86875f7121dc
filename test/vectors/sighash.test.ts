import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/sighash.js';

testSuite(suite);
