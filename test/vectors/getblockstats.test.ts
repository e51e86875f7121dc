import { testSuite } from '../support/suite-test.js';
import { suite } from './suites/getblockstats.js';

testSuite(suite);
